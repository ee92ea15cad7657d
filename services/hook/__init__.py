"""`solograph hook`: Claude Code's SessionStart and UserPromptSubmit hook (`main`)."""
