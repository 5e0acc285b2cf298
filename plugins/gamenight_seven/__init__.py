"""SEVEN, after SEVEN.CMD for OS/2 PM (1994): a five-seat shedding card game."""
