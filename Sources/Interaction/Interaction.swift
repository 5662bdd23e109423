// Input modes, gestures, viewport and keyboard translation: plain logic, no SDL types.
