//! `kifu show` (the board at a ply) and `kifu find` (the games that reach a position or play
//! some moves): arguments only; the library does the work (`kifu_app::commands::show`,
//! `kifu_app::commands::find`).

use std::io::{self, BufWriter, Write};

use kifu::validate;
use kifu_app::commands;

use super::{
    FindArgs, OutputFormat, Ply, ShowArgs, ShowFormat, Usage, batch_options, emit, encoding,
    input_format, inputs, progress,
};

pub(super) fn cmd_show(args: ShowArgs) -> anyhow::Result<u8> {
    use commands::show::{self, At, Target};
    let target = Target::parse(&args.target);
    let opts = show::Options {
        at: match (args.at_diagnostic, args.ply) {
            (true, _) => At::Diagnostic,
            (false, Some(Ply::N(n))) => At::Ply(n),
            (false, Some(Ply::Last) | None) => At::Last,
        },
        flip: args.flip,
        format: input_format(args.input_format),
        encoding: encoding(args.encoding),
        validate: validate::Options::default(),
    };
    let shown = match show::show(&target, &opts) {
        Ok(s) => s,
        Err(e) => {
            let _ = writeln!(io::stderr(), "kifu: {}: {e}", target.path.display());
            return Ok(2);
        }
    };
    // The diagnostic shown, as `validate` prints it.
    let finding = shown.diagnostic.as_ref().map(|d| {
        let sep = if d.line.is_some() { ":" } else { ": " };
        format!("{}{sep}{d}", target.path.display())
    });
    let text = match args.format {
        ShowFormat::Bod => {
            let mut t = String::new();
            if let Some(f) = &finding {
                // A `#` line is a comment to KIF readers: the diagram still reads.
                t.push_str(&format!("# {f}\n"));
            }
            t.push_str(&shown.diagram.bod());
            t
        }
        ShowFormat::Svg => match finding {
            Some(f) => shown.diagram.with_note(f).svg(),
            None => shown.diagram.svg(),
        },
        ShowFormat::Sfen => format!("{}\n", shown.diagram.sfen()),
    };
    Ok(emit(text.as_bytes(), args.output.as_deref(), args.force)?.unwrap_or(0))
}

pub(super) fn cmd_find(args: FindArgs) -> anyhow::Result<u8> {
    use commands::find::{self, Query};
    use kifu::core::{Move, Position};
    if (args.any_side || args.board_only) && args.sfen.is_none() {
        return Err(Usage("--any-side and --board-only go with --sfen".to_owned()).into());
    }
    let query = match (&args.sfen, &args.moves) {
        (Some(s), _) => {
            let target = super::sfen_arg(s, Position::from_setup_relaxed)?;
            Query::Position {
                target: Box::new(target),
                any_side: args.any_side,
                board_only: args.board_only,
            }
        }
        (None, Some(m)) => {
            let moves = m
                .split_whitespace()
                .map(|t| Move::from_usi(t).map_err(|e| Usage(format!("bad move {t:?}: {e}"))))
                .collect::<Result<Vec<_>, _>>()?;
            if moves.is_empty() {
                return Err(Usage("--moves needs at least one move".to_owned()).into());
            }
            Query::Moves(moves)
        }
        (None, None) => return Err(Usage("--sfen or --moves is needed".to_owned()).into()),
    };
    let inputs = inputs(&args.common);
    let bopts = batch_options(&args.common);
    let opts = find::Options {
        style: match args.format {
            OutputFormat::Human => commands::Style::Human,
            OutputFormat::Json => commands::Style::Json,
        },
        quiet: args.common.quiet,
    };
    let mut progress = progress(&args.common, &inputs);
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let stderr = io::stderr();
    let mut err = stderr.lock();
    let summary = find::find(
        &inputs,
        &bopts,
        &query,
        &opts,
        &mut out,
        &mut err,
        &mut progress,
    )?;
    // Finding nothing is an answer, not a failure (unlike grep): 0 whenever the input could
    // be read, as `stats`.
    Ok(if summary.unreadable { 2 } else { 0 })
}
