//! Corpus input: JSONL (plain or gzip-compressed) and folders of text/HTML files.
