"""The `solograph` command: every read with `--json` printing the exact answer object, the
write jobs in-process, and the commands that start the services.

One module per index (portfolio, sessions, kb, sources) plus usage and serve; `main` parses
and imports only the module of the command that runs, so a read never pays for another
index, the scanner or a web framework.
"""
