"""The page for people: server-rendered HTML over the public reads, mounted at /ui by the API
(`solograph ui` serves it embedded on 127.0.0.1)."""
