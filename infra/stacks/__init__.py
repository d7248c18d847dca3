"""The DreamChat stack and the constructs it is made of."""
