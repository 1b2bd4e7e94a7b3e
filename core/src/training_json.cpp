// Training-step analysis as JSON.
