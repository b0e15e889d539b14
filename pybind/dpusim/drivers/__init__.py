"""Host drivers that do what Linux does, step by step and with its delays."""
