//! Text decoding (scaffolding: replaced by the real implementation).
