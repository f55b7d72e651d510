"""The shared substrate every Pallium service sits on: store, paths, errors, authority, dispatch."""
