//! The stages in order: [`OutOfCore::run`] reuses each stage whose marker from an
//! earlier run still holds and runs the others ([`Steps`]), the sketch stage over the
//! input, each later one over the files of those before it.

use std::path::Path;
use std::time::Instant;

use ndd_minhash::MinHasher;
use ndd_scale::SortedRuns;

#[cfg(feature = "simhash")]
use super::hamming;
use super::input::Input;
use super::manifest::Marker;
use super::workdir::{
    OUTPUTS, checksum_key, claim_work_dir, need, raw_files_intact, remove_outputs, run_names,
    run_paths, trailer_checksum,
};
use super::{
    CANDIDATES_STAGE, EXACT_STAGE, Engine, GROUP_STAGE, Job, OutOfCore, OutOfCoreOutcome,
    SKETCH_STAGE, STAGES, StageRun, VERIFY_STAGE, WEIGHTS_STAGE, buckets, components, digest_order,
    exact, pair_order, sketch, verify, weights,
};
use crate::{Document, Error, Verifier};

/// The stages' one "reuse or run": stage `i` of [`STAGES`] is reused when its marker
/// from an earlier run still holds, else run, its marker saved, and either way timed.
struct Steps<'a> {
    dir: &'a Path,
    markers: Vec<Option<Marker>>,
    /// The input's fingerprint, known or being computed beside the first stage: a
    /// marker is saved once it is known.
    input: Input,
    /// What the stages' fingerprints derive from beside the input: the job's settings
    /// and (for MinHash) its banding.
    job: &'a OutOfCore,
    params: Option<ndd_lsh::LshParams>,
    runs: Vec<StageRun>,
}

impl Steps<'_> {
    /// The stages' fingerprints ([`OutOfCore::fingerprints`]), with 0 standing in for
    /// an input's fingerprint still being computed.
    fn fingerprints(&self) -> [u64; 6] {
        self.job.fingerprints(self.input.now(), self.params)
    }

    /// Stage `i`'s marker: the earlier run's, or the one `stage` returns with the bytes
    /// it wrote.
    fn run(
        &mut self,
        i: usize,
        stage: impl FnOnce() -> Result<(Marker, u64), Error>,
    ) -> Result<Marker, Error> {
        let (name, kind) = STAGES[i];
        let t = Instant::now();
        let (marker, reused, bytes_written) = match self.markers[i].take() {
            Some(m) => (m, true, 0),
            None => {
                let (m, bytes) = stage()?;
                let input = self.input.wait()?;
                m.save(self.dir, name, self.job.fingerprints(input, self.params)[i])?;
                (m, false, bytes)
            }
        };
        self.runs.push(StageRun {
            stage: kind,
            reused,
            time: t.elapsed(),
            bytes_written,
        });
        Ok(marker)
    }
}

impl OutOfCore {
    /// Runs the stages that are not finished yet over `docs` (positions are their
    /// order: the first document is 0). `docs` is read only when the sketch stage has
    /// to be done; a run whose sketch stage is reused does not consume it.
    ///
    /// # Errors
    ///
    /// The first `Err` of `docs`; [`Error::Io`] when the work directory cannot be
    /// written; [`ndd_core::Error::CorruptData`] (wrapped) when a work file from an
    /// earlier run is damaged (remove the work directory to start over).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Document, Error, OutOfCore};
    /// let dir = std::env::temp_dir().join("ndd-doc-src-mod-390");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let job = OutOfCore::new(&Dedup::new(), &dir)?;
    /// // An input error stops the run with it.
    /// let docs = vec![Ok(Document::new("a", "text")), Err(Error::io("in.jsonl", std::io::ErrorKind::Other.into()))];
    /// assert!(job.run(docs).is_err());
    /// assert_eq!(job.run([Ok(Document::new("a", "text"))])?.documents, 1);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run<I>(&self, docs: I) -> Result<OutOfCoreOutcome, Error>
    where
        I: IntoIterator<Item = Result<Document, Error>>,
    {
        let dir = self.work_dir.as_path();
        claim_work_dir(dir)?;
        let params = match &self.engine {
            Engine::MinHash(_) => Some(self.plan.minhash_banding()?),
            #[cfg(feature = "simhash")]
            Engine::SimHash(_) => None,
        };
        // The input's fingerprint: known, computed now (a finished sketch stage's
        // reuse depends on it), or computed beside the sketch stage (nothing to reuse:
        // only the markers, written after it, carry it; 0 stands in until then).
        let input = Input::start(
            self.input,
            self.input_by.as_ref(),
            dir,
            STAGES[SKETCH_STAGE].0,
        )?;
        let fingerprints = self.fingerprints(input.now(), params);
        let (scan, num_perm, max_hamming) = match &self.engine {
            // The plan's resolved scan: always set for MinHash.
            Engine::MinHash(c) => (
                self.plan.bucket_scan().unwrap_or(usize::MAX),
                c.num_perm,
                None,
            ),
            #[cfg(feature = "simhash")]
            Engine::SimHash(c) => (0, 0, Some(u32::try_from(c.max_hamming()).unwrap_or(63))),
        };
        let job = Job {
            dir,
            budget: self.budget,
            scan,
            threshold: self.plan.threshold,
            emit: self.plan.emit(),
            num_perm,
            max_hamming,
            fields: self.fields(),
            verifier: &self.plan.verifier,
            features: self.plan.features,
            exact: self.plan.exact,
            needs_sets: self.needs_sets(),
            needs_texts: self.needs_texts(),
            progress: self.progress.as_ref(),
        };
        // Markers that still hold; a stage redone invalidates every later one.
        // A user's function has no fingerprint: its verification (and what follows)
        // is redone on every run, never taken from a run with another function.
        let custom = matches!(self.plan.verifier, Verifier::Custom(_));
        let weighted = matches!(self.plan.verifier, Verifier::AlignWeighted);
        let mut markers: Vec<Option<Marker>> = Vec::new();
        for (i, (name, _)) in STAGES.iter().enumerate() {
            if i == WEIGHTS_STAGE && !weighted {
                // Not run: holds; the files of an earlier run stay in place unless a
                // stage they depend on is redone.
                if markers.last().is_some_and(Option::is_none) {
                    Marker::clear(dir, name)?;
                    remove_outputs(dir, OUTPUTS[i])?;
                }
                markers.push(Some(Marker::default()));
                continue;
            }
            let reusable =
                !(custom && i >= VERIFY_STAGE) && markers.last().is_none_or(Option::is_some);
            let m = reusable
                .then(|| Marker::load(dir, name, fingerprints[i]))
                .flatten()
                .filter(|m| raw_files_intact(dir, m));
            markers.push(m);
        }
        for (i, (name, _)) in STAGES.iter().enumerate() {
            if markers[i].is_none() {
                Marker::clear(dir, name)?;
                remove_outputs(dir, OUTPUTS[i])?;
            }
        }
        let mut steps = Steps {
            dir,
            markers,
            input,
            job: self,
            params,
            runs: Vec::new(),
        };

        let sketched = steps.run(SKETCH_STAGE, || {
            let docs = docs.into_iter();
            let (s, fp) = match (&self.engine, params) {
                (Engine::MinHash(config), Some(params)) => {
                    crate::method::for_extractor!(self.plan.features, |e| {
                        let hasher = MinHasher::builder()
                            .num_hashes(config.num_perm)
                            .seed(config.seed)
                            .build_with(e)?;
                        let scheme = ndd_core::Signature::scheme(&ndd_core::DocSketcher::sketch(
                            &hasher, "",
                        ));
                        let fp = ndd_scale::band_key_fingerprint(scheme, params);
                        let signer = sketch::MinSigner {
                            hasher: &hasher,
                            params,
                            fields: job.fields,
                        };
                        sketch::run(&job, &signer, fp, docs).map(|s| (s, fp))
                    })?
                }
                #[cfg(feature = "simhash")]
                (Engine::SimHash(config), _) => {
                    hamming::sketch(&job, config, self.plan.features, docs)?
                }
                (Engine::MinHash(_), None) => {
                    return Err(Error::Core(ndd_core::Error::invalid_parameter(
                        "bands",
                        "a MinHash run has bands and rows",
                    )));
                }
            };
            let mut m = Marker::default();
            for (name, sum) in &s.checksums {
                m = m.with(&checksum_key(name), format!("{sum:016x}"));
            }
            // The runs' own checksums (their trailers'), so that a run of another
            // input with the same settings, put in place of one, is not read.
            for p in s.runs.iter().chain(&s.digest_runs) {
                if let Some(name) = p.file_name().and_then(|n| n.to_str()) {
                    m = m.with(
                        &checksum_key(name),
                        format!("{:016x}", trailer_checksum(p)?),
                    );
                }
            }
            let m = m
                .with("documents", s.documents)
                .with("signature_len", s.signature_len)
                .with("band_key_fingerprint", fp)
                .with("bytes_written", s.bytes_written)
                .with("runs", run_names(&s.runs))
                .with("digest_runs", run_names(&s.digest_runs));
            Ok((m, s.bytes_written))
        })?;
        let documents = need(&sketched, "documents")?;
        let signature_len = need(&sketched, "signature_len")?;
        let key_fp = need(&sketched, "band_key_fingerprint")?;
        // Known since the sketch stage's marker was saved (or found).
        let fingerprints = steps.fingerprints();

        let exact = steps.run(EXACT_STAGE, || {
            let runs = self.plan.exact.map(|_| {
                SortedRuns::from_paths(run_paths(dir, &sketched, "digest_runs"), digest_order, 0)
            });
            let c = exact::run(&job, runs.as_ref(), fingerprints[EXACT_STAGE])?;
            let m = Marker::default()
                .with("groups", c.groups)
                .with("copies", c.copies);
            Ok((m, c.bytes_written))
        })?;

        let bucketed = steps.run(CANDIDATES_STAGE, || {
            let keys = SortedRuns::from_paths(
                run_paths(dir, &sketched, "runs"),
                ndd_scale::BandKeySort::order,
                key_fp,
            );
            let copies = exact::CopyBits::load(&job, documents, fingerprints[EXACT_STAGE])?;
            let b = match &self.engine {
                Engine::MinHash(_) => {
                    let bands = params.map_or(1, |p| p.bands());
                    let groups = buckets::groups(bands);
                    let fp = fingerprints[CANDIDATES_STAGE];
                    buckets::run(&job, &keys, &copies, bands, groups, fp)?
                }
                #[cfg(feature = "simhash")]
                Engine::SimHash(_) => {
                    hamming::candidates(&job, &keys, &copies, fingerprints[CANDIDATES_STAGE])?
                }
            };
            let mut m = Marker::default()
                .with("candidates", b.candidates)
                .with("runs", run_names(&b.runs));
            let mut bytes_written = b.bytes_written;
            // The set verifiers' named documents, beside the runs (written before the
            // marker, which covers it as it covers them).
            if let Some(named) = &b.named {
                bytes_written += named.write(dir, fingerprints[CANDIDATES_STAGE])?;
                m = m.with("named", named.count());
            }
            // Only MinHash's walk is bounded (SimHash reports no bucket scan, as in
            // memory).
            let m = match &self.engine {
                Engine::MinHash(_) => m
                    .with("cut_reads", b.cut_reads)
                    .with("cut_documents", b.cut_documents),
                #[cfg(feature = "simhash")]
                Engine::SimHash(_) => m,
            };
            Ok((m, bytes_written))
        })?;
        let candidates = need(&bucketed, "candidates")?;

        if weighted {
            steps.run(WEIGHTS_STAGE, || {
                weights::run(
                    &job,
                    documents,
                    fingerprints[EXACT_STAGE],
                    fingerprints[WEIGHTS_STAGE],
                )
            })?;
        }

        let verified = steps.run(VERIFY_STAGE, || {
            let runs = SortedRuns::from_paths(
                run_paths(dir, &bucketed, "runs"),
                pair_order,
                fingerprints[CANDIDATES_STAGE],
            );
            let read = [
                fingerprints[EXACT_STAGE],
                fingerprints[CANDIDATES_STAGE],
                fingerprints[WEIGHTS_STAGE],
            ];
            verify::run(
                &job,
                &runs,
                documents,
                signature_len,
                read,
                fingerprints[VERIFY_STAGE],
            )
        })?;

        let grouped = steps.run(GROUP_STAGE, || {
            components::run(&job, fingerprints[EXACT_STAGE], fingerprints[VERIFY_STAGE])
        })?;
        let stages = steps.runs;
        Ok(OutOfCoreOutcome {
            documents,
            candidates,
            checked: need(&verified, "checked")?,
            verified: need(&verified, "verified")?,
            pairs: need(&verified, "pairs")?,
            exact_copies: need(&exact, "copies")?,
            exact_copies_dropped: need(&grouped, "exact_dropped")?,
            groups: need(&grouped, "groups")?,
            grouped: need(&grouped, "grouped")?,
            // A stage kept from a run of a version that did not count: unknown.
            bucket_scan: bucketed
                .get_u64("cut_reads")
                .zip(bucketed.get_u64("cut_documents"))
                .map(|(cut_reads, cut_documents)| crate::BucketScan {
                    bound: job.scan,
                    cut_reads,
                    cut_documents,
                }),
            stages,
            work_dir: dir.to_path_buf(),
            fingerprint: fingerprints[VERIFY_STAGE],
        })
    }
}
