"""Maintenance commands for the course's notebooks (run through the Makefile)."""
