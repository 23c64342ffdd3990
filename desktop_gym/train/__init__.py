"""Rollouts, step-level GRPO, Entropulse and trainer adapters (not built yet; see the issues)."""
