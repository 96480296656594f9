"""A user's model as a suite (`gen-cases --from-model`, docs/from_model.md): every node a family covers becomes a
case with the model's own constants, attributes, opset, types and shapes, inputs that tell the fault models apart
in that configuration, and expected outputs from generator/reference/.

model_source.py reads the model (types and shapes, constants read one at a time); plan.py is the contract a family's
adapter (a module here named for the family) keeps; node_cases.py builds a node's cases; suite.py writes the suite."""
