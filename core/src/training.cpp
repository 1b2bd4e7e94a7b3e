// Training-step analysis.
