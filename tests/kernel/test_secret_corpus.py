"""Recall and precision of the secret detector on the labelled corpus (tests/kernel/secret_corpus.py)."""

from kernel.secrets import find_secrets, redact
from tests.kernel.secret_corpus import FORMAT_SAMPLES, NEGATIVE, POSITIVE


def _overlaps(start: int, end: int, text: str, secrets: list[str]) -> bool:
    for secret in secrets:
        at = text.find(secret)
        if at != -1 and start < at + len(secret) and at < end:
            return True
    return False


def score() -> dict[str, float]:
    """Recall: planted secrets gone after `redact`. Precision: detections that cover a planted secret."""
    planted = found = true = false = 0
    for text, secrets in POSITIVE:
        redacted, _ = redact(text)
        planted += len(secrets)
        found += sum(secret not in redacted for secret in secrets)
        for match in find_secrets(text):
            if _overlaps(match.start, match.end, text, secrets):
                true += 1
            else:
                false += 1
    false += sum(len(find_secrets(text)) for text in NEGATIVE)
    return {"recall": found / planted, "precision": true / (true + false), "lines": len(POSITIVE) + len(NEGATIVE)}


def test_the_corpus_is_large_enough_and_holds_every_context():
    assert len(POSITIVE) + len(NEGATIVE) >= 300 and len(NEGATIVE) >= 150
    assert any("\r\n" in text for text, _ in POSITIVE) and any("\r\n" in text for text in NEGATIVE)
    assert len({kind.split("/")[0] for kind in FORMAT_SAMPLES}) >= 60


def test_recall_is_total_and_precision_at_least_99_percent():
    figures = score()
    assert figures["recall"] == 1.0, figures
    assert figures["precision"] >= 0.99, figures


def test_each_format_sample_is_found_as_its_own_kind():
    for label, secret in FORMAT_SAMPLES.items():
        kinds = [m.kind for m in find_secrets(f"value: {secret}\n")]
        assert kinds == [label.split("/")[0]], (label, kinds)


def test_no_lookalike_is_touched():
    assert [text for text in NEGATIVE if find_secrets(text)] == []
