"""The pipeline's stages, one module each: analyse -> implement -> tests -> execute -> repair -> register."""
