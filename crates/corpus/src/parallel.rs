//! [`ParallelJsonl`]: a [`JsonlReader`]'s items decoded on rayon's pool, for the
//! engines that stream their input (out of core, Bloom filters) as
//! [`read_jsonl_with_progress`](super::read_jsonl_with_progress) reads a whole corpus.

use std::io::BufRead;

use crate::{Document, JsonlReader, Problem};

/// The items of a [`JsonlReader`], in the same order with the same problems, decoded in
/// parallel a batch of lines at a time (about 1 MiB) while the next batch is read, under
/// the `rayon` feature; one at a time without it. The batch reading is
/// [`read_corpus`](super::read_corpus)'s: one design for every engine.
///
/// Memory: two batches of lines (the one decoded and the one read ahead), about 2 MiB
/// and one line of at most [`ReadOptions::max_document_bytes`](crate::ReadOptions::max_document_bytes)
/// each, and the decoded documents of one batch. The reader owns its input (`R:
/// 'static`, as a file's reader is).
///
/// # Example
///
/// ```
/// use near_dup::corpus::{JsonlReader, ParallelJsonl, ReadOptions};
/// let input = "{\"id\": \"a\", \"text\": \"one\"}\n\nnot json\n{\"text\": \"two\"}\n";
/// let options = ReadOptions::default();
/// let mut docs = ParallelJsonl::new(JsonlReader::new(input.as_bytes(), "in.jsonl", &options));
/// assert_eq!(docs.next().unwrap()?.text, "one");
/// assert_eq!((docs.line(), docs.location()), (1, "in.jsonl:1".to_owned()));
/// assert_eq!(docs.next().unwrap().unwrap_err().location, "in.jsonl:3");
/// let last = docs.next().unwrap()?;
/// assert_eq!((last.id.as_str(), docs.line()), ("4", 4)); // no id: the line number
/// assert!(docs.next().is_none());
/// assert_eq!(docs.blank_lines(), 1);
/// # Ok::<(), near_dup::corpus::Problem>(())
/// ```
pub struct ParallelJsonl<R: 'static> {
    #[cfg(feature = "rayon")]
    inner: crate::jsonl::Batched<R>,
    #[cfg(not(feature = "rayon"))]
    inner: JsonlReader<R>,
}

impl<R: BufRead + Send + 'static> ParallelJsonl<R> {
    /// The items of `reader`, decoded in parallel.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{JsonlReader, ParallelJsonl, ReadOptions};
    /// let options = ReadOptions::default();
    /// let docs = ParallelJsonl::new(JsonlReader::new(&b"{\"text\": \"x\"}\n"[..], "in", &options));
    /// assert_eq!(docs.count(), 1);
    /// ```
    pub fn new(reader: JsonlReader<R>) -> Self {
        ParallelJsonl {
            #[cfg(feature = "rayon")]
            inner: crate::jsonl::Batched::owning(reader),
            #[cfg(not(feature = "rayon"))]
            inner: reader,
        }
    }

    /// The 1-based line of the last item yielded (0 before the first).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{JsonlReader, ParallelJsonl, ReadOptions};
    /// let options = ReadOptions::default();
    /// let mut docs = ParallelJsonl::new(JsonlReader::new(&b"\n{\"text\": \"x\"}\n"[..], "in", &options));
    /// assert_eq!(docs.line(), 0);
    /// docs.next();
    /// assert_eq!(docs.line(), 2);
    /// ```
    #[must_use]
    pub fn line(&self) -> u64 {
        #[cfg(feature = "rayon")]
        {
            self.inner.line()
        }
        #[cfg(not(feature = "rayon"))]
        {
            self.inner.lines()
        }
    }

    /// `name:line` of the last item yielded, as [`JsonlReader::location`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{JsonlReader, ParallelJsonl, ReadOptions};
    /// let options = ReadOptions::default();
    /// let mut docs = ParallelJsonl::new(JsonlReader::new(&b"{\"text\": \"x\"}\n"[..], "in", &options));
    /// docs.next();
    /// assert_eq!(docs.location(), "in:1");
    /// ```
    #[must_use]
    pub fn location(&self) -> String {
        self.inner.location()
    }

    /// Blank lines skipped before the last item yielded (all of them at the end).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{JsonlReader, ParallelJsonl, ReadOptions};
    /// let options = ReadOptions::default();
    /// let mut docs = ParallelJsonl::new(JsonlReader::new(&b"\n\n{\"text\": \"x\"}\n"[..], "in", &options));
    /// assert_eq!(docs.by_ref().count(), 1);
    /// assert_eq!(docs.blank_lines(), 2);
    /// ```
    #[must_use]
    pub fn blank_lines(&self) -> u64 {
        self.inner.blank_lines()
    }

    /// The reader: its options, and its field counts ([`JsonlReader::fields`]) of the
    /// items yielded so far.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{JsonlReader, ParallelJsonl, ReadOptions};
    /// let options = ReadOptions::default();
    /// let mut docs = ParallelJsonl::new(JsonlReader::new(&b"{\"text\": \"x\"}\n"[..], "in", &options));
    /// assert_eq!(docs.by_ref().count(), 1);
    /// assert_eq!(docs.reader().options().text_field, "text");
    /// ```
    #[must_use]
    pub fn reader(&self) -> &JsonlReader<R> {
        #[cfg(feature = "rayon")]
        {
            self.inner.reader()
        }
        #[cfg(not(feature = "rayon"))]
        {
            &self.inner
        }
    }
}

impl<R: BufRead + Send + 'static> Iterator for ParallelJsonl<R> {
    type Item = Result<Document, Problem>;

    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next()
    }
}

impl<R: 'static> std::fmt::Debug for ParallelJsonl<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParallelJsonl").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ReadOptions;

    /// Over several batches (more lines than a batch holds, blank and bad ones among
    /// them), the same items, line numbers and locations as the line-at-a-time reader.
    #[test]
    fn the_same_items_and_lines_as_the_reader() {
        let mut input = String::new();
        for i in 0..40_000u32 {
            match i % 97 {
                0 => input.push('\n'),
                1 => input.push_str("not json\n"),
                2 => input.push_str("{\"text\": 3}\n"),
                _ => input.push_str(&format!("{{\"id\": {i}, \"text\": \"doc {}\"}}\n", i % 13)),
            }
        }
        let options = ReadOptions::default();
        let bytes: &'static [u8] = Box::leak(input.into_bytes().into_boxed_slice());
        let mut one = JsonlReader::new(bytes, "in", &options);
        let mut par = ParallelJsonl::new(JsonlReader::new(bytes, "in", &options));
        let mut items = 0;
        loop {
            let (a, b) = (one.next(), par.next());
            let (Some(a), Some(b)) = (a.as_ref(), b.as_ref()) else {
                assert_eq!(a.is_none(), b.is_none());
                break;
            };
            match (a, b) {
                (Ok(a), Ok(b)) => assert_eq!((&a.id, &a.text), (&b.id, &b.text)),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
                _ => panic!("item {items}: {a:?} against {b:?}"),
            }
            assert_eq!((one.lines(), one.location()), (par.line(), par.location()));
            items += 1;
        }
        assert_eq!(items, 40_000 - 413); // 413 blank lines (i % 97 == 0)
        assert_eq!(one.blank_lines(), par.blank_lines());
    }
}
