"""Analyses shared by the passes."""
