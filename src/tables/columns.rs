//! A choice of a table's columns: `--columns` on the command line, `columns=` from Python.
//! Every writer takes one (CSV and JSON Lines write those cells, Parquet and Arrow batches
//! those columns), and the positions table does not write the SFENs nobody asked for.

use std::fmt;

use arrow_schema::{Schema, SchemaRef};

use super::{Table, games_schema, positions_schema};

/// Some of a table's columns, in the order asked (each at most once).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Columns {
    table: Table,
    /// Indexes in the table's schema ([`games_schema`], [`positions_schema`]).
    indices: Vec<usize>,
}

/// A column asked for that the table does not have, or asked for twice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnsError {
    /// The name as given.
    pub name: String,
    /// Whether it was named twice (else: the table has no such column).
    pub repeated: bool,
    /// The table's columns, in order.
    pub known: Vec<String>,
}

impl fmt::Display for ColumnsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.repeated {
            write!(f, "column `{}` is named twice", self.name)
        } else if self.name.is_empty() {
            write!(
                f,
                "no column chosen; the columns are: {}",
                self.known.join(", ")
            )
        } else {
            write!(
                f,
                "no column `{}`; the columns are: {}",
                self.name,
                self.known.join(", ")
            )
        }
    }
}

impl std::error::Error for ColumnsError {}

/// The full schema of `table`.
pub(crate) fn schema_of(table: Table) -> SchemaRef {
    match table {
        Table::Games => games_schema(),
        Table::Positions => positions_schema(),
    }
}

impl Columns {
    /// Every column of `table`, in the table's order.
    pub fn all(table: Table) -> Columns {
        Columns {
            table,
            indices: (0..schema_of(table).fields().len()).collect(),
        }
    }

    /// The columns of `table` named by `names`, in that order. An unknown name, a name given
    /// twice or no name at all is an error (which lists the table's columns).
    pub fn select<S: AsRef<str>>(table: Table, names: &[S]) -> Result<Columns, ColumnsError> {
        let schema = schema_of(table);
        let known = || schema.fields().iter().map(|f| f.name().clone()).collect();
        if names.is_empty() {
            return Err(ColumnsError {
                name: String::new(),
                repeated: false,
                known: known(),
            });
        }
        let mut indices = Vec::with_capacity(names.len());
        for name in names {
            let name = name.as_ref();
            let Ok(i) = schema.index_of(name) else {
                return Err(ColumnsError {
                    name: name.to_owned(),
                    repeated: false,
                    known: known(),
                });
            };
            if indices.contains(&i) {
                return Err(ColumnsError {
                    name: name.to_owned(),
                    repeated: true,
                    known: known(),
                });
            }
            indices.push(i);
        }
        Ok(Columns { table, indices })
    }

    /// These columns without the one named `name` (a Hive partition column, which the
    /// directory names): unchanged if it is not among them.
    pub fn without(&self, name: &str) -> Columns {
        let drop = schema_of(self.table).index_of(name).ok();
        Columns {
            table: self.table,
            indices: self
                .indices
                .iter()
                .copied()
                .filter(|&i| Some(i) != drop)
                .collect(),
        }
    }

    /// The table they are columns of.
    pub fn table(&self) -> Table {
        self.table
    }

    /// Their indexes in the table's schema, in order.
    pub fn indices(&self) -> &[usize] {
        &self.indices
    }

    /// Whether the column named `name` is among them.
    pub fn has(&self, name: &str) -> bool {
        schema_of(self.table)
            .index_of(name)
            .is_ok_and(|i| self.indices.contains(&i))
    }

    /// Whether they are every column of the table in its order.
    pub fn is_all(&self) -> bool {
        self.indices
            .iter()
            .copied()
            .eq(0..schema_of(self.table).fields().len())
    }

    /// Their indexes as the writers and [`project`](super::project) take them: `None` when
    /// they are every column in order (nothing to pick).
    pub fn picked(&self) -> Option<Vec<usize>> {
        (!self.is_all()).then(|| self.indices.clone())
    }

    /// The schema of a table of these columns.
    pub fn schema(&self) -> SchemaRef {
        schema_of_indices(schema_of(self.table), &self.indices)
    }
}

/// The schema of the columns of `full` at `indices` (in that order, each once): `full` itself
/// when they are every column in order.
pub(crate) fn schema_of_indices(full: SchemaRef, indices: &[usize]) -> SchemaRef {
    if indices.iter().copied().eq(0..full.fields().len()) {
        return full;
    }
    let fields: Vec<_> = indices.iter().map(|&i| full.fields()[i].clone()).collect();
    std::sync::Arc::new(Schema::new(fields))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_chosen_by_name_in_the_order_given() {
        let c = Columns::select(Table::Positions, &["sfen", "move", "result"]).expect("known");
        assert_eq!(c.indices(), &[4, 6, 12]);
        let names: Vec<_> = c
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        assert_eq!(names, ["sfen", "move", "result"]);
        assert!(c.has("sfen") && !c.has("game_key") && !c.is_all());
        let back = Columns::select(Table::Positions, &["result", "ply"]).expect("known");
        assert_eq!(back.indices(), &[12, 3]);
        assert!(Columns::all(Table::Games).is_all());
        assert_eq!(Columns::all(Table::Games).picked(), None);
        assert_eq!(back.picked(), Some(vec![12, 3]));
        assert_eq!(Columns::all(Table::Positions).schema(), positions_schema());
        let g = Columns::all(Table::Games).without("event");
        assert_eq!(g.indices().len(), games_schema().fields().len() - 1);
        assert!(!g.has("event") && g.has("site"));
    }

    #[test]
    fn an_unknown_or_repeated_column_is_refused_with_the_list() {
        let e = Columns::select(Table::Positions, &["sfen", "eval"]).expect_err("unknown");
        assert_eq!((e.name.as_str(), e.repeated), ("eval", false));
        assert!(e.to_string().contains("eval_cp, mate, pv"), "{e}");
        let e = Columns::select(Table::Games, &["plies", "plies"]).expect_err("twice");
        assert!(e.repeated && e.to_string().contains("twice"), "{e}");
        let none: [&str; 0] = [];
        assert!(Columns::select(Table::Games, &none).is_err());
    }
}
