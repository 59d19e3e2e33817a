//! The statistics job: every game of the inputs folded into one [`StatsReport`].
//!
//! Layer: commands, above [`batch`]. Each unit is parsed and validated on the workers (one
//! [`GameSummary`] a game, so no record outlives its unit); the folding into [`Stats`] runs in
//! input order on the calling thread, so the figures do not depend on the number of jobs.

use std::io;
use std::sync::Arc;

use crate::batch::{self, Input, Observer};
use kifu::diag::Diagnostic;
use kifu::stats::{self, GameSummary, Stats, StatsReport};
use kifu::tables::{Dedup, Facts, Filter};
use kifu::validate;

use super::Summary;

/// Parses and validates every game of `inputs` and folds it into the statistics; tells
/// `observer` of each unit done. Returns the report and the counts behind the exit code; the
/// error is the first that stopped the run (a failed write of the observer's).
pub fn stats(
    inputs: &[Input],
    batch_opts: &batch::Options,
    validate_opts: &validate::Options,
    stats_opts: &stats::Options,
    filter: &Filter,
    observer: &mut dyn Observer,
) -> io::Result<(StatsReport, Summary)> {
    let mut dedup = Dedup::new();
    let mut st = Stats::new();
    let mut summary = Summary::default();
    let mut game_index = 0u64;
    // The path of the source being read, shared by all of its games' rows.
    let mut current: Option<(Arc<batch::Source>, Arc<str>)> = None;
    let res = batch::run(
        inputs,
        batch_opts,
        |unit| {
            // Each game's digest, gathered as `validate` judges the game.
            let g = batch::gather_unit(unit, validate_opts, validate::Gather::Games);
            let games: Vec<(GameSummary, Vec<Diagnostic>, Option<u64>)> = g
                .games
                .into_iter()
                .map(|(r, game)| {
                    let key = if filter.is_empty() {
                        Some(0)
                    } else {
                        let facts = Facts::of(&game, &r);
                        filter.admits(&facts).then_some(facts.key)
                    };
                    let s = GameSummary::of(&game, &r, stats_opts);
                    (s, r.diagnostics, key)
                })
                .collect();
            (games, g.diagnostics)
        },
        |unit, (games, file)| {
            if unit.chunk == 0 {
                game_index = 0;
            }
            if unit.last {
                st.add_file();
                summary.files += 1;
            }
            let path = match &current {
                Some((s, p)) if Arc::ptr_eq(s, &unit.source) => Arc::clone(p),
                _ => {
                    let p: Arc<str> = Arc::from(unit.source.path.as_str());
                    current = Some((Arc::clone(&unit.source), Arc::clone(&p)));
                    p
                }
            };
            st.add_file_diagnostics(&file);
            summary.count(&file);
            for (g, d, key) in &games {
                let keep = key.is_some_and(|k| !filter.dedup || dedup.first(k));
                if !keep {
                    game_index += 1;
                    continue;
                }
                summary.games += 1;
                summary.plies += u64::from(g.plies);
                summary.count(d);
                st.add(&path, game_index, g);
                game_index += 1;
            }
            observer.unit_done(games.len() as u64, unit.len(), unit.last);
            Ok(())
        },
    );
    observer.finish();
    res?;
    Ok((st.report(stats_opts), summary))
}
