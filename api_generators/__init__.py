"""LLM-driven API generation pipeline (analyse tasks -> write app APIs -> test -> repair).

Imported as ``desktop_gym.api_generators``. Not built yet: see the project's issues.
"""
