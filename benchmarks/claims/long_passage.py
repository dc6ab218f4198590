"""CPU time and memory of embedding one 5 MB passage, cut and uncut (issue 40, row 14).

    nice -n 5 python benchmarks/claims/long_passage.py [--mb 5]

Prints, for the default embedder (all-MiniLM-L6-v2, which reads 256 tokens), the CPU
seconds of this process (robust on a busy machine, unlike wall time) and the rise of its
peak resident memory for ``SentenceEmbedder([text])`` (the text cut to what the model reads,
:meth:`~cage_core.models.SentenceEmbedder.embedded_part`) and for the sentence-transformers
model on the whole text, and whether the two embeddings are bit-identical.
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from cage_core.models import default_embedder

PARAGRAPH = (
    "Marie Curie was born in Warsaw, the capital of Poland, in 1867. She moved to Paris to "
    "study physics and mathematics at the Sorbonne, where she met Pierre Curie. Together they "
    "discovered polonium and radium, and she won two Nobel Prizes. "
)


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=5.0)
    args = parser.parse_args()
    embedder = default_embedder()
    embedder(["warm up"])
    text = PARAGRAPH * int(args.mb * 1_000_000 / len(PARAGRAPH))
    runs = {
        "cut": lambda: embedder([text]),
        "uncut": lambda: embedder.model.encode(
            [text], normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        ),
    }
    vectors = {}
    for name, run in runs.items():  # cut first: the peak only rises
        peak, cpu = _peak_mib(), time.process_time()
        vectors[name] = np.asarray(run(), dtype=np.float32)
        print(
            f"{name:>6}: {len(text):,} chars, CPU {time.process_time() - cpu:.2f} s, "
            f"peak RSS +{_peak_mib() - peak:.0f} MiB"
        )
    print("bit-identical:", vectors["cut"].tobytes() == vectors["uncut"].tobytes())


if __name__ == "__main__":
    main()
