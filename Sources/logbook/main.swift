print("logbook: not yet")
