"""Reading the witness catalogues: each family's JSON form of its witnesses, below both the family modules
(generator/families/<family>.py, which turn witnesses into cases) and the witness searches
(generator/witness/<family>.py, which find them). `generator/catalogue/<family>.py` decodes (and encodes) one
family's witnesses and names the fault sets its case functions read; it imports neither a family nor a search.
The catalogues themselves are data: generator/witness/catalogue/<family>.json, loaded by generator.witness.load.
"""
