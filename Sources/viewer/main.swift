print("viewer")
