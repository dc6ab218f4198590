"""Small shared inputs of the framework tests."""

QUERY = "Which country's capital was Marie Curie born in?"
TEXTS = [
    "Marie Curie was born in Warsaw. She won the Nobel Prize.",
    "Warsaw is the capital of Poland.",
    "Bananas are yellow fruit rich in potassium.",
    "The Nobel Prize in Physics 1903 was awarded to Pierre Curie and Marie Curie.",
    "Paris is the capital of France.",
    "Pierre Curie was a French physicist.",
]
SCORE_KEYS = {"relevance_score", "cage_score", "cage_similarity", "cage_coherence", "cage_rank"}
OTHER_QUERIES = [
    QUERY,
    "Who was a French physicist?",
    "What fruit has potassium?",
    "capital of France",
]
