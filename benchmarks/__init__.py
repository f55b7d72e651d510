"""Pallium's performance harness: every figure printed beside a baseline measured in the same run."""
