import TOMLKit
import ArgumentParser
print("placeholder")
