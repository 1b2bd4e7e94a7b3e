// replaced by the measurement library
