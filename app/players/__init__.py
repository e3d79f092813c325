"""Players: who sits at the tables across rooms and visits (identity, names, ratings)."""
