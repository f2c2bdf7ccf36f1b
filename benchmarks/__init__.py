"""Speed and memory benchmarks of tensorweave, run side by side with real TensorFlow (never timed tests)."""
