package loop

// PairsJournalSuffix names a match's journal of finished pairs, next to its
// folder (gen-001/gate.pairs.jsonl for gen-001/gate): one JSON object a
// line, written while the match runs and removed when it is done.
const PairsJournalSuffix = ".pairs.jsonl"
