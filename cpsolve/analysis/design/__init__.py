"""Design search: puzzles with exactly one solution (snake census, piece sets, making a puzzle unique)."""
