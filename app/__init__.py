"""meldhall: a self-hosted multiplayer server for Gin Rummy and Rummikub."""
