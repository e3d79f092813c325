"""Pure rules engines. Only the standard library and app.games may be imported here."""
