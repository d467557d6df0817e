"""What the tests share: synthetic data, the recorded regression cases and the table of the
invariance tests."""
