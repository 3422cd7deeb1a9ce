print("employees: not yet")
