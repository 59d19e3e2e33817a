//! Keeps docs/diagnostics.md and `diag::Code::ALL` in step: every code has a section, and
//! every section names a code.

use std::collections::BTreeSet;

use kifu::Code;

#[test]
fn diagnostics_doc_lists_every_code() {
    let path = crate::common::repo().join("docs/diagnostics.md");
    let text = std::fs::read_to_string(path).expect("docs/diagnostics.md");
    let documented: BTreeSet<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("## `"))
        .filter_map(|l| l.split('`').next())
        .map(str::to_owned)
        .collect();
    let codes: BTreeSet<String> = Code::ALL.iter().map(|c| c.as_str().to_owned()).collect();
    let missing: Vec<_> = codes.difference(&documented).collect();
    let unknown: Vec<_> = documented.difference(&codes).collect();
    assert!(missing.is_empty(), "codes without a section: {missing:?}");
    assert!(unknown.is_empty(), "sections for no code: {unknown:?}");
    // Each section says its severity, as the code does.
    for c in Code::ALL {
        let head = format!("## `{}`", c.as_str());
        let start = text.find(&head).expect("section");
        let body = &text[start + head.len()..];
        let body = &body[..body.find("\n## ").unwrap_or(body.len())];
        let sev = match c.severity() {
            kifu::Severity::Error => "Severity: error",
            kifu::Severity::Warning => "Severity: warning",
        };
        assert!(body.contains(sev), "{}: expected {sev:?}", c.as_str());
        assert!(body.contains("```"), "{}: no example", c.as_str());
    }
}
