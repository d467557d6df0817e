import pathlib
import sys

# tests/reference.py is imported by name
sys.path.insert(0, str(pathlib.Path(__file__).parent))
