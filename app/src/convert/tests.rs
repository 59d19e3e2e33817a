//! The planning, tested without the command line.

use std::path::{Path, PathBuf};

use super::output::Output;
use super::*;
use crate::batch::Input;
use crate::batch::discover::safe_relative;

fn rel(p: &str) -> Option<PathBuf> {
    safe_relative(Path::new(p))
}

/// The output names of inputs at these relative paths (each listed once per input), read
/// in the order given, under the plan made from all of them.
fn planned(rels: &[&str], target: Format) -> Vec<PathBuf> {
    let dir = Path::new("/out");
    let paths: Vec<PathBuf> = rels.iter().map(PathBuf::from).collect();
    let mut names = Names::planned(paths.iter().map(PathBuf::as_path), target);
    paths
        .iter()
        .map(|r| names.next(dir, Some(r), target, false, 0).expect("named"))
        .collect()
}

#[test]
fn colliding_names_take_the_whole_input_name_whatever_the_order() {
    let want = |rels: &[&str]| -> Vec<PathBuf> {
        rels.iter()
            .map(|r| PathBuf::from(format!("/out/{r}.kifu")))
            .collect()
    };
    // Both orders: each of a.kif and a.csa gets its whole name, neither the plain one.
    for order in [["sub/a.kif", "sub/a.csa"], ["sub/a.csa", "sub/a.kif"]] {
        assert_eq!(planned(&order, Format::Kifu), want(&order), "{order:?}");
    }
    // Three inputs, one of them already of the target's extension.
    let three = ["a.kifu", "a.csa", "a.ki2"];
    assert_eq!(planned(&three, Format::Kifu), want(&three));
    // Without a collision, the plain name; a collision elsewhere changes nothing here.
    assert_eq!(
        planned(&["b.kif", "a.kif", "a.csa"], Format::Kifu)[0],
        PathBuf::from("/out/b.kifu")
    );
    // Same stem in other directories: no collision.
    assert_eq!(
        planned(&["x/a.kif", "y/a.csa"], Format::Kifu),
        vec![
            PathBuf::from("/out/x/a.kifu"),
            PathBuf::from("/out/y/a.kifu")
        ]
    );
    // The same relative path twice (two inputs named on the command line): numbered in the
    // order given, after the whole name.
    assert_eq!(
        planned(&["a.kif", "a.kif"], Format::Csa),
        vec![
            PathBuf::from("/out/a.kif.csa"),
            PathBuf::from("/out/a.kif-2.csa")
        ]
    );
    // Unplanned (no name known in advance): first come, plain name; then numbered.
    let mut names = Names::new();
    let a = names.next(
        Path::new("/out"),
        rel("a.kif").as_deref(),
        Format::Kifu,
        false,
        0,
    );
    let b = names.next(
        Path::new("/out"),
        rel("a.csa").as_deref(),
        Format::Kifu,
        false,
        0,
    );
    assert_eq!(a, Ok(PathBuf::from("/out/a.kifu")));
    assert_eq!(b, Ok(PathBuf::from("/out/a-2.kifu")));
}

#[test]
fn the_games_of_colliding_multi_game_inputs_keep_both_numbers() {
    let dir = Path::new("/out");
    let rels = [PathBuf::from("g.csa"), PathBuf::from("g.usi")];
    let mut names = Names::planned(rels.iter().map(PathBuf::as_path), Format::Kif);
    let got: Vec<PathBuf> = [(0, 0), (0, 1), (1, 0)]
        .iter()
        .map(|&(i, game)| {
            names
                .next(dir, Some(&rels[i]), Format::Kif, true, game)
                .expect("named")
        })
        .collect();
    assert_eq!(
        got,
        ["/out/g.csa-0.kif", "/out/g.csa-1.kif", "/out/g.usi-0.kif"].map(PathBuf::from)
    );
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
    let plan = Plan::new(&inputs, Some(&input), Format::Kif).expect("plan");
    assert_eq!(plan.sink(), &Sink::File(input.clone()));
    let mut output = Output::default();
    let d = output
        .append(&input, &input, &plan.guard, Format::Kif, b"new", 0)
        .expect_err("refused")
        .expect("reported");
    assert!(
        d.message.starts_with("refusing to overwrite an input"),
        "{}",
        d.message
    );
    assert_eq!(std::fs::read(&input).expect("read"), b"text");
    // Nor a file inside an input directory.
    let dir_inputs = [Input::Path(tmp.path().to_path_buf())];
    let out = tmp.path().join("out");
    let plan = Plan::new(&dir_inputs, Some(&out), Format::Kif).expect("plan");
    let canon = out.canonicalize().expect("canonical");
    assert_eq!(plan.exclude(), Some(canon.as_path()));
    // (A new output: the one above reports a refused file once.)
    let mut output = Output::default();
    let d = output
        .append(&input, &input, &plan.guard, Format::Kif, b"new", 0)
        .expect_err("refused")
        .expect("reported");
    assert_eq!(d.code, Code::Io);
    assert_eq!(std::fs::read(&input).expect("read"), b"text");
}

#[test]
fn outputs_are_planned_by_the_inputs() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let a = tmp.path().join("a.kif");
    std::fs::write(&a, "text").expect("write");
    assert_eq!(
        Plan::new(&[Input::Stdin], None, Format::Kif)
            .expect("plan")
            .sink(),
        &Sink::Stdout
    );
    assert_eq!(
        Plan::new(&[Input::Path(a.clone())], None, Format::Kif)
            .expect("plan")
            .sink(),
        &Sink::Stdout
    );
    let two = [Input::Path(a.clone()), Input::Stdin];
    assert!(matches!(
        Plan::new(&two, None, Format::Kif),
        Err(PlanError::NeedsDir)
    ));
    let dir = tmp.path().join("o");
    let plan = Plan::new(&two, Some(&dir), Format::Kif).expect("plan");
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
    let plan = Plan::new(&[Input::Stdin], Some(&target), Format::Csa).expect("plan");
    let mut output = Output::default();
    output
        .append(&target, &target, &plan.guard, Format::Csa, b"A\n", 0)
        .expect("append");
    output
        .append(&target, &target, &plan.guard, Format::Csa, b"B\n", 1)
        .expect("append");
    assert!(!target.exists(), "not renamed before it is complete");
    output.finish().expect("finish");
    assert_eq!(std::fs::read(&target).expect("read"), b"A\n/\nB\n");
}

#[test]
fn an_existing_file_is_replaced_only_when_forced() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let target = tmp.path().join("a.csa");
    std::fs::write(&target, "old").expect("write");
    let plan = Plan::new(&[Input::Stdin], Some(&target), Format::Csa).expect("plan");
    let mut output = Output::default();
    let d = output
        .append(&target, &target, &plan.guard, Format::Csa, b"new", 0)
        .expect_err("refused")
        .expect("reported");
    assert_eq!(d.code, Code::OutputExists);
    // The later games meant for the same file: not written, not reported again.
    let again = output.append(&target, &target, &plan.guard, Format::Csa, b"more", 1);
    assert_eq!(again, Err(None));
    assert_eq!((output.written, output.refused_files), (0, 1));
    assert_eq!(std::fs::read(&target).expect("read"), b"old");
    let plan = plan.force(true);
    let mut output = Output::default();
    output
        .append(&target, &target, &plan.guard, Format::Csa, b"new", 0)
        .expect("forced");
    output.finish().expect("renamed");
    assert_eq!(std::fs::read(&target).expect("read"), b"new");
}

#[test]
fn a_file_that_appears_while_its_output_is_written_is_kept() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let target = tmp.path().join("a.csa");
    let plan = Plan::new(&[Input::Stdin], Some(&target), Format::Csa).expect("plan");
    let mut output = Output::default();
    output
        .append(&target, &target, &plan.guard, Format::Csa, b"new", 0)
        .expect("open");
    std::fs::write(&target, "someone else's").expect("write");
    let d = output.finish().expect_err("refused");
    assert_eq!(d.code, Code::OutputExists);
    assert_eq!(std::fs::read(&target).expect("read"), b"someone else's");
    // No temporary file is left behind.
    let names: Vec<_> = std::fs::read_dir(tmp.path()).expect("dir").collect();
    assert_eq!(names.len(), 1);
}

#[test]
fn o_names_a_file_only_for_one_input_and_of_the_targets_format() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let a = tmp.path().join("a.kif");
    std::fs::write(&a, "text").expect("write");
    let one = [Input::Path(a.clone())];
    let two = [Input::Path(a.clone()), Input::Stdin];
    // One input: a file, unless its extension says another format or an archive.
    for (out, target, ok) in [
        ("x.csa", Format::Csa, true),
        ("x.txt", Format::Csa, true),
        ("x.json", Format::Jkf, true),
        ("x.sfen", Format::Usi, true),
        ("x.kif", Format::Csa, false),
        ("x.kifu", Format::Kif, false),
        ("x.zip", Format::Csa, false),
    ] {
        let o = tmp.path().join(out);
        let plan = Plan::new(&one, Some(&o), target);
        match plan {
            Ok(p) => assert!(ok && p.sink() == &Sink::File(o.clone()), "{out}"),
            Err(e) => assert!(!ok && matches!(e, PlanError::Extension(..)), "{out}: {e}"),
        }
    }
    // Several inputs: -o must be a directory; a file name is refused and nothing is made.
    for out in ["all.csa", "all.zip", "a.kif"] {
        let o = tmp.path().join(out);
        let e = Plan::new(&two, Some(&o), Format::Csa).expect_err(out);
        assert!(matches!(e, PlanError::NotADir(_)), "{out}: {e}");
    }
    assert!(!tmp.path().join("all.csa").exists());
    // A name without an extension, or ending with `/`, is a directory to make.
    for out in ["made", "made.csa/"] {
        let o = tmp.path().join(out);
        let plan = Plan::new(&two, Some(&o), Format::Csa).expect(out);
        assert!(matches!(plan.sink(), Sink::Dir(_)), "{out}");
        assert!(o.is_dir(), "{out}");
    }
}
