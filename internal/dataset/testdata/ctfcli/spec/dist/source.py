print("the handout")
