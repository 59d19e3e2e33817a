//! The planning, tested without the command line.

use std::path::{Path, PathBuf};

use super::*;
use crate::batch::discover::safe_relative;

fn rel(p: &str) -> Option<PathBuf> {
    safe_relative(Path::new(p))
}

#[test]
fn colliding_names_keep_the_input_extension() {
    let dir = Path::new("/out");
    let mut names = Names::new();
    let a_kif = rel("sub/a.kif");
    let a_csa = rel("sub/a.csa");
    let a_ki2 = rel("sub/a.ki2");
    let first = names.next(dir, a_kif.as_deref(), Format::Kifu, false, 0);
    let second = names.next(dir, a_csa.as_deref(), Format::Kifu, false, 0);
    let third = names.next(dir, a_ki2.as_deref(), Format::Kifu, false, 0);
    assert_eq!(first, Ok(PathBuf::from("/out/sub/a.kifu")));
    assert_eq!(second, Ok(PathBuf::from("/out/sub/a.csa.kifu")));
    assert_eq!(third, Ok(PathBuf::from("/out/sub/a.ki2.kifu")));
    // The same input extension twice more: numbered.
    let again = names.unique(PathBuf::from("/out/sub/a.kifu"), a_csa.as_deref());
    assert_eq!(again, PathBuf::from("/out/sub/a.csa-2.kifu"));
    let no_ext = names.unique(PathBuf::from("/out/sub/a.kifu"), rel("sub/a").as_deref());
    assert_eq!(no_ext, PathBuf::from("/out/sub/a.in.kifu"));
}

#[test]
fn the_games_of_a_multi_game_file_are_numbered_for_a_one_game_target() {
    let dir = Path::new("out");
    let r = rel("games.csa");
    for (target, game, want) in [
        (Format::Kif, 0, "out/games-0.kif"),
        (Format::Kif, 3, "out/games-3.kif"),
        (Format::Jkf, 1, "out/games-1.jkf"),
        // CSA and USI hold many games: one file.
        (Format::Csa, 2, "out/games.csa"),
        (Format::Usi, 2, "out/games.usi"),
    ] {
        assert_eq!(
            destination(dir, r.as_deref(), target, true, game),
            Ok(PathBuf::from(want)),
            "{target:?} game {game}"
        );
    }
    assert_eq!(
        destination(dir, r.as_deref(), Format::Kif, false, 0),
        Ok(PathBuf::from("out/games.kif"))
    );
}

#[test]
fn unsafe_entry_names_are_refused() {
    for name in ["../evil.kif", "a/../../evil.kif", "/etc/evil.kif"] {
        let r = rel(name);
        assert_eq!(r, None, "{name}");
        let d = destination(Path::new("out"), r.as_deref(), Format::Kifu, false, 0)
            .expect_err("refused");
        assert_eq!(d.code, Code::Io);
        assert!(d.message.contains("refusing to write"), "{}", d.message);
    }
}

#[test]
fn an_input_is_never_replaced() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let input = tmp.path().join("a.kif");
    std::fs::write(&input, "text").expect("write");
    let inputs = [Input::Path(input.clone())];
    let plan = Plan::new(&inputs, Some(&input)).expect("plan");
    assert_eq!(plan.sink(), &Sink::File(input.clone()));
    let mut output = Output::default();
    let d = output
        .append(&input, &plan.guard, Format::Kif, b"new", 0)
        .expect_err("refused");
    assert!(
        d.message.starts_with("refusing to overwrite an input"),
        "{}",
        d.message
    );
    assert_eq!(std::fs::read(&input).expect("read"), b"text");
    // Nor a file inside an input directory.
    let dir_inputs = [Input::Path(tmp.path().to_path_buf())];
    let out = tmp.path().join("out");
    let plan = Plan::new(&dir_inputs, Some(&out)).expect("plan");
    let canon = out.canonicalize().expect("canonical");
    assert_eq!(plan.exclude(), Some(canon.as_path()));
    let d = output
        .append(&input, &plan.guard, Format::Kif, b"new", 0)
        .expect_err("refused");
    assert_eq!(d.code, Code::Io);
    assert_eq!(std::fs::read(&input).expect("read"), b"text");
}

#[test]
fn outputs_are_planned_by_the_inputs() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let a = tmp.path().join("a.kif");
    std::fs::write(&a, "text").expect("write");
    assert_eq!(
        Plan::new(&[Input::Stdin], None).expect("plan").sink(),
        &Sink::Stdout
    );
    assert_eq!(
        Plan::new(&[Input::Path(a.clone())], None)
            .expect("plan")
            .sink(),
        &Sink::Stdout
    );
    let two = [Input::Path(a.clone()), Input::Stdin];
    assert!(matches!(Plan::new(&two, None), Err(PlanError::NeedsDir)));
    let dir = tmp.path().join("o");
    let plan = Plan::new(&two, Some(&dir)).expect("plan");
    assert_eq!(
        plan.sink(),
        &Sink::Dir(dir.canonicalize().expect("created"))
    );
    assert_eq!(plan.exclude(), None);
}

#[test]
fn games_in_one_file_are_separated_per_format() {
    let mut out = Vec::new();
    separate(&mut out, Format::Csa, 0).expect("write");
    assert!(out.is_empty());
    separate(&mut out, Format::Csa, 1).expect("write");
    separate(&mut out, Format::Usi, 1).expect("write");
    separate(&mut out, Format::Kifu, 2).expect("write");
    assert_eq!(out, b"/\n\n");
}

#[test]
fn a_multi_game_file_is_renamed_into_place_whole() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let target = tmp.path().join("all.csa");
    let plan = Plan::new(&[Input::Stdin], Some(&target)).expect("plan");
    let mut output = Output::default();
    output
        .append(&target, &plan.guard, Format::Csa, b"A\n", 0)
        .expect("append");
    output
        .append(&target, &plan.guard, Format::Csa, b"B\n", 1)
        .expect("append");
    assert!(!target.exists(), "not renamed before it is complete");
    output.finish().expect("finish");
    assert_eq!(std::fs::read(&target).expect("read"), b"A\n/\nB\n");
}
