//! Rows to Arrow: the typed schemas of the two tables and builders that gather rows into a
//! [`RecordBatch`] (no file involved, so a caller may hand the batches to another Arrow
//! implementation as they are).

use std::ops::Range;
use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Date32Builder, Float64Builder, Int32Builder, Int64Builder, ListBuilder,
    StringBuilder, TimestampMillisecondBuilder,
};
use arrow_array::{
    ArrayRef, BooleanArray, Int32Array, Int64Array, ListArray, RecordBatch, StringArray,
    new_null_array,
};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};

use super::games::GameRow;
use super::parquet::ROW_GROUP_ROWS;
use super::positions::{EngineEval, GameOfRows, PositionRow, PositionRows};

fn list_of_text(name: &str) -> Field {
    Field::new_list(name, Field::new("item", DataType::Utf8, true), true)
}

/// The games table's columns, in order (see `docs/tables.md`).
pub fn games_schema() -> SchemaRef {
    use DataType::*;
    let text = |n: &str| Field::new(n, Utf8, true);
    Arc::new(Schema::new(vec![
        Field::new("path", Utf8, false),
        Field::new("game", Int64, false),
        text("format"),
        text("encoding"),
        text("event"),
        text("site"),
        text("round"),
        Field::new("start_date", Date32, true),
        Field::new("start_time", Timestamp(TimeUnit::Millisecond, None), true),
        text("black"),
        text("white"),
        Field::new("black_rating", Float64, true),
        Field::new("white_rating", Float64, true),
        text("time_control"),
        Field::new("time_main_ms", Int64, true),
        Field::new("time_byoyomi_ms", Int64, true),
        Field::new("time_increment_ms", Int64, true),
        text("handicap"),
        Field::new("start_sfen", Utf8, false),
        Field::new("plies", Int32, false),
        text("ending"),
        text("winner"),
        text("board_winner"),
        text("board_by"),
        Field::new("board_ply", Int32, true),
        list_of_text("opening"),
        text("strategy"),
        text("black_strategy"),
        text("white_strategy"),
        text("black_castle"),
        text("white_castle"),
        text("final_sfen"),
        text("final_hash"),
        Field::new("variations", Int32, false),
        Field::new("comments", Int32, false),
        Field::new("errors", Int32, false),
        Field::new("warnings", Int32, false),
        Field::new_list("codes", Field::new("item", Utf8, true), false),
        Field::new("game_key", Utf8, false),
    ]))
}

/// The positions table's columns, in order.
pub fn positions_schema() -> SchemaRef {
    use DataType::*;
    Arc::new(Schema::new(vec![
        Field::new("path", Utf8, false),
        Field::new("game", Int64, false),
        Field::new("game_key", Utf8, false),
        Field::new("ply", Int32, false),
        Field::new("sfen", Utf8, false),
        Field::new("side", Utf8, false),
        Field::new("move", Utf8, false),
        Field::new("time_ms", Int64, true),
        Field::new("eval_cp", Int32, true),
        Field::new("mate", Int32, true),
        list_of_text("pv"),
        Field::new("legal", Boolean, false),
        Field::new("result", Utf8, true),
    ]))
}

fn int32(v: u32) -> i32 {
    i32::try_from(v).unwrap_or(i32::MAX)
}

fn int64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// Games gathered into a [`RecordBatch`] of [`games_schema`].
pub struct GamesBatch {
    text: Vec<StringBuilder>,
    game: Int64Builder,
    start_date: Date32Builder,
    start_time: TimestampMillisecondBuilder,
    ratings: [Float64Builder; 2],
    times: [Int64Builder; 3],
    ints: Vec<Int32Builder>,
    board_ply: Int32Builder,
    opening: ListBuilder<StringBuilder>,
    codes: ListBuilder<StringBuilder>,
    len: usize,
}

/// The text columns of the games table, in the order [`GamesBatch`] keeps them.
const GAME_TEXT: usize = 23;

impl Default for GamesBatch {
    fn default() -> Self {
        GamesBatch::new()
    }
}

impl GamesBatch {
    /// An empty batch.
    pub fn new() -> GamesBatch {
        GamesBatch {
            text: (0..GAME_TEXT).map(|_| StringBuilder::new()).collect(),
            game: Int64Builder::new(),
            start_date: Date32Builder::new(),
            start_time: TimestampMillisecondBuilder::new(),
            ratings: [Float64Builder::new(), Float64Builder::new()],
            times: [
                Int64Builder::new(),
                Int64Builder::new(),
                Int64Builder::new(),
            ],
            ints: (0..5).map(|_| Int32Builder::new()).collect(),
            board_ply: Int32Builder::new(),
            opening: ListBuilder::new(StringBuilder::new()),
            codes: ListBuilder::new(StringBuilder::new()),
            len: 0,
        }
    }

    /// Rows gathered since the last [`GamesBatch::finish`].
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no row is gathered.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds a row.
    pub fn push(&mut self, r: &GameRow) {
        let texts: [Option<&str>; GAME_TEXT] = [
            Some(&r.path),
            r.format,
            r.encoding,
            r.event.as_deref(),
            r.site.as_deref(),
            r.round.as_deref(),
            r.black.as_deref(),
            r.white.as_deref(),
            r.time_control.as_deref(),
            r.handicap,
            Some(&r.start_sfen),
            r.ending.as_deref(),
            r.winner,
            r.board_winner,
            r.board_by,
            r.strategy.as_deref(),
            r.black_strategy.as_deref(),
            r.white_strategy.as_deref(),
            r.black_castle.as_deref(),
            r.white_castle.as_deref(),
            r.final_sfen.as_deref(),
            r.final_hash.as_deref(),
            Some(&r.game_key),
        ];
        for (b, v) in self.text.iter_mut().zip(texts) {
            b.append_option(v);
        }
        self.game.append_value(int64(r.game));
        self.start_date.append_option(r.start_date.map(|d| d.days));
        self.start_time
            .append_option(r.start_time.and_then(|d| d.timestamp_ms()));
        self.ratings[0].append_option(r.black_rating);
        self.ratings[1].append_option(r.white_rating);
        for (b, v) in
            self.times
                .iter_mut()
                .zip([r.time_main_ms, r.time_byoyomi_ms, r.time_increment_ms])
        {
            b.append_option(v.map(int64));
        }
        for (b, v) in
            self.ints
                .iter_mut()
                .zip([r.plies, r.variations, r.comments, r.errors, r.warnings])
        {
            b.append_value(int32(v));
        }
        self.board_ply.append_option(r.board_ply.map(int32));
        match &r.opening {
            Some(moves) => {
                for m in moves {
                    self.opening.values().append_value(m);
                }
                self.opening.append(true);
            }
            None => self.opening.append_null(),
        }
        for c in &r.codes {
            self.codes.values().append_value(c);
        }
        self.codes.append(true);
        self.len += 1;
    }

    /// The rows gathered as a batch; the builder is empty again.
    pub fn finish(&mut self) -> RecordBatch {
        self.len = 0;
        let mut t: Vec<ArrayRef> = self
            .text
            .iter_mut()
            .map(|b| Arc::new(b.finish()) as ArrayRef)
            .collect();
        let mut take =
            |i: usize| std::mem::replace(&mut t[i], Arc::new(StringBuilder::new().finish()));
        let mut ints: Vec<ArrayRef> = self
            .ints
            .iter_mut()
            .map(|b| Arc::new(b.finish()) as ArrayRef)
            .collect();
        let mut int =
            |i: usize| std::mem::replace(&mut ints[i], Arc::new(Int32Builder::new().finish()));
        let columns: Vec<ArrayRef> = vec![
            take(0),
            Arc::new(self.game.finish()),
            take(1),
            take(2),
            take(3),
            take(4),
            take(5),
            Arc::new(self.start_date.finish()),
            Arc::new(self.start_time.finish()),
            take(6),
            take(7),
            Arc::new(self.ratings[0].finish()),
            Arc::new(self.ratings[1].finish()),
            take(8),
            Arc::new(self.times[0].finish()),
            Arc::new(self.times[1].finish()),
            Arc::new(self.times[2].finish()),
            take(9),
            take(10),
            int(0),
            take(11),
            take(12),
            take(13),
            take(14),
            Arc::new(self.board_ply.finish()),
            Arc::new(self.opening.finish()),
            take(15),
            take(16),
            take(17),
            take(18),
            take(19),
            take(20),
            take(21),
            int(1),
            int(2),
            int(3),
            int(4),
            Arc::new(self.codes.finish()),
            take(22),
        ];
        RecordBatch::try_new(games_schema(), columns).expect("the games columns match their schema")
    }
}

/// Moves gathered into a [`RecordBatch`] of [`positions_schema`].
pub struct PositionsBatch {
    path: StringBuilder,
    game: Int64Builder,
    game_key: StringBuilder,
    ply: Int32Builder,
    sfen: StringBuilder,
    side: StringBuilder,
    mv: StringBuilder,
    time_ms: Int64Builder,
    eval_cp: Int32Builder,
    mate: Int32Builder,
    pv: ListBuilder<StringBuilder>,
    legal: BooleanBuilder,
    result: StringBuilder,
    len: usize,
    /// The rows each batch has room for.
    capacity: usize,
}

impl Default for PositionsBatch {
    fn default() -> Self {
        PositionsBatch::new()
    }
}

impl PositionsBatch {
    /// An empty batch.
    pub fn new() -> PositionsBatch {
        PositionsBatch::with_capacity(0)
    }

    /// An empty batch with room for `rows` rows (texts of the usual length, no PV), made
    /// again with that room after each [`PositionsBatch::finish`]: the builders do not grow
    /// by doubling, copying what they hold, batch after batch.
    pub fn with_capacity(rows: usize) -> PositionsBatch {
        let text = |bytes: usize| StringBuilder::with_capacity(rows, rows * bytes);
        PositionsBatch {
            path: text(32),
            game: Int64Builder::with_capacity(rows),
            game_key: text(16),
            ply: Int32Builder::with_capacity(rows),
            sfen: text(80),
            side: text(1),
            mv: text(5),
            time_ms: Int64Builder::with_capacity(rows),
            eval_cp: Int32Builder::with_capacity(rows),
            mate: Int32Builder::with_capacity(rows),
            pv: ListBuilder::with_capacity(StringBuilder::new(), rows),
            legal: BooleanBuilder::with_capacity(rows),
            result: text(4),
            len: 0,
            capacity: rows,
        }
    }

    /// Rows gathered since the last [`PositionsBatch::finish`].
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no row is gathered.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds a row.
    pub fn push(&mut self, r: &PositionRow<'_>) {
        if self.len == 0 && self.capacity > 0 && self.ply.capacity() == 0 {
            // The room of a batch finished earlier, taken only now (see `finish`).
            *self = PositionsBatch::with_capacity(self.capacity);
        }
        self.path.append_value(r.path);
        self.game.append_value(int64(r.game));
        self.game_key.append_value(r.game_key);
        self.ply.append_value(int32(r.ply));
        self.sfen.append_value(r.sfen);
        self.side.append_value(r.side);
        self.mv.append_value(r.mv);
        self.time_ms.append_option(r.time_ms.map(int64));
        let eval = r.eval.as_ref();
        self.eval_cp.append_option(eval.and_then(|e| e.eval_cp));
        self.mate.append_option(eval.and_then(|e| e.mate));
        match eval.filter(|e| !e.pv.is_empty()) {
            Some(e) => {
                for m in &e.pv {
                    self.pv.values().append_value(m);
                }
                self.pv.append(true);
            }
            None => self.pv.append_null(),
        }
        self.legal.append_value(r.legal);
        self.result.append_option(r.result);
        self.len += 1;
    }

    /// The rows gathered as a batch; the builder is empty again. Its room for the next
    /// batch is taken with that batch's first row: a Parquet file hands the batch finished
    /// here to its encoder, waiting while that encodes the one before, and room taken here
    /// would be a third batch's memory during that wait.
    pub fn finish(&mut self) -> RecordBatch {
        let mut full = std::mem::replace(
            self,
            PositionsBatch {
                capacity: self.capacity,
                ..PositionsBatch::with_capacity(0)
            },
        );
        let columns: Vec<ArrayRef> = vec![
            Arc::new(full.path.finish()),
            Arc::new(full.game.finish()),
            Arc::new(full.game_key.finish()),
            Arc::new(full.ply.finish()),
            Arc::new(full.sfen.finish()),
            Arc::new(full.side.finish()),
            Arc::new(full.mv.finish()),
            Arc::new(full.time_ms.finish()),
            Arc::new(full.eval_cp.finish()),
            Arc::new(full.mate.finish()),
            Arc::new(full.pv.finish()),
            Arc::new(full.legal.finish()),
            Arc::new(full.result.finish()),
        ];
        RecordBatch::try_new(positions_schema(), columns)
            .expect("the positions columns match their schema")
    }
}

impl PositionRows {
    /// The rows as a batch of [`positions_schema`], their texts handed over as they are (no
    /// copy but the game keys'; Arrow checks each buffer is UTF-8). Rows whose texts run
    /// past the 2 GiB Arrow's offsets reach are made a row at a time by a [`PositionsBatch`].
    pub fn into_batch(self) -> RecordBatch {
        self.into_batch_of(None)
    }

    /// The rows as a batch of the columns `columns` (see [`PositionRows::into_batch_of`]),
    /// made a row at a time by a [`PositionsBatch`], whose builders check each text.
    fn batch_by_rows(&self, columns: &[usize]) -> RecordBatch {
        let mut b = PositionsBatch::with_capacity(self.len());
        for r in self.iter() {
            b.push(&r);
        }
        b.finish()
            .project(columns)
            .expect("the columns are the schema's")
    }

    /// The rows as a batch of some columns of [`positions_schema`] (by index, in that order,
    /// each once, as a [`Columns`](super::Columns) holds them; `None`: all), as
    /// [`PositionRows::into_batch`]: the columns not asked for are not made.
    pub fn into_batch_of(mut self, columns: Option<&[usize]>) -> RecordBatch {
        let all: Vec<usize>;
        let columns = match columns {
            Some(c) => c,
            None => {
                all = (0..positions_schema().fields().len()).collect();
                &all
            }
        };
        let schema = super::columns::schema_of_indices(positions_schema(), columns);
        let fits = |ends: &[u32]| ends.last().is_none_or(|&e| i32::try_from(e).is_ok());
        // The bytes of a column that repeats a text of each row's game.
        let repeated =
            |wanted: usize, text: &dyn Fn(&GameOfRows) -> usize| match columns.contains(&wanted) {
                true => self
                    .game
                    .iter()
                    .map(|&g| text(&self.games[g as usize]))
                    .sum(),
                false => 0,
            };
        let paths: usize = repeated(0, &|g| g.path.len());
        let keys: usize = repeated(2, &|g| g.key.len());
        if !(fits(&self.sfen_ends)
            && fits(&self.mv_ends)
            && i32::try_from(keys).is_ok()
            && i32::try_from(paths).is_ok()
            && i32::try_from(self.len()).is_ok())
        {
            return self.batch_by_rows(columns);
        }
        let n = self.len();
        // Each text was a whole `str` (UTF-8, ending on a character's boundary), and Arrow
        // checks the buffer again.
        let text = |bytes: Vec<u8>, ends: &[u32]| -> ArrayRef {
            Arc::new(
                StringArray::try_new(offsets(ends), Buffer::from_vec(bytes), None)
                    .expect("whole strs one after the other, their offsets checked"),
            )
        };
        let mut evals: Option<(ArrayRef, ArrayRef, ArrayRef)> = None;
        let mut made = Vec::with_capacity(columns.len());
        for &i in columns {
            let column: ArrayRef = match i {
                0 => {
                    let mut path_text = Vec::with_capacity(paths);
                    let mut path_ends = Vec::with_capacity(n);
                    for &g in &self.game {
                        path_text.extend_from_slice(self.games[g as usize].path.as_bytes());
                        path_ends.push(path_text.len() as u32);
                    }
                    text(path_text, &path_ends)
                }
                1 => Arc::new(Int64Array::from_iter_values(
                    self.game
                        .iter()
                        .map(|&g| int64(self.games[g as usize].index)),
                )),
                2 => {
                    let mut key_text = Vec::with_capacity(keys);
                    let mut key_ends = Vec::with_capacity(n);
                    for &g in &self.game {
                        let key = self.games[g as usize].key.as_bytes();
                        // The keys kifu makes are 16 hex digits: copied at a fixed size, a
                        // store rather than a call.
                        match <&[u8; 16]>::try_from(key) {
                            Ok(key) => key_text.extend_from_slice(key),
                            Err(_) => key_text.extend_from_slice(key),
                        }
                        key_ends.push(key_text.len() as u32);
                    }
                    text(key_text, &key_ends)
                }
                3 => Arc::new(Int32Array::new(
                    ScalarBuffer::from(std::mem::take(&mut self.ply)),
                    None,
                )),
                4 => text(std::mem::take(&mut self.sfen), &self.sfen_ends),
                5 => {
                    let side_ends: Vec<u32> = (1..=n as u32).collect();
                    text(std::mem::take(&mut self.side), &side_ends)
                }
                6 => text(std::mem::take(&mut self.mv), &self.mv_ends),
                7 => Arc::new(
                    self.time_ms
                        .iter()
                        .map(|t| t.map(int64))
                        .collect::<Int64Array>(),
                ),
                8..=10 => {
                    let (eval_cp, mate, pv) =
                        evals.get_or_insert_with(|| evaluations(&self.evals, n));
                    [eval_cp, mate, pv][i - 8].clone()
                }
                11 => Arc::new(BooleanArray::new(
                    arrow_buffer::BooleanBuffer::from(self.legal.as_slice()),
                    None,
                )),
                // 12, the last column.
                _ => Arc::new(fixed_texts(&self.result)),
            };
            made.push(column);
        }
        RecordBatch::try_new(schema, made).expect("the positions columns match their schema")
    }
}

impl PositionRows {
    /// Copies rows from the start of `range` of `from` (advancing it) until this holds
    /// `limit` rows (at least 1) or the range is done; returns whether it holds `limit`.
    /// Empty, it first takes room for `limit` rows, up to a row group's: a table's writer
    /// fills a row group or a batch with it.
    pub fn fill(&mut self, from: &PositionRows, range: &mut Range<usize>, limit: usize) -> bool {
        let limit = limit.max(1);
        if self.is_empty() {
            self.reserve(limit.min(ROW_GROUP_ROWS));
        }
        let take = (limit - self.len().min(limit)).min(range.len());
        self.extend_from(from, range.start..range.start + take);
        range.start += take;
        self.len() >= limit
    }
}

/// A text column's offsets as Arrow takes them (a leading 0), from where each value ends
/// (each at most `i32::MAX`, checked by the caller).
fn offsets(ends: &[u32]) -> OffsetBuffer<i32> {
    let mut v = Vec::with_capacity(ends.len() + 1);
    v.push(0i32);
    v.extend(ends.iter().map(|&e| e as i32));
    OffsetBuffer::new(ScalarBuffer::from(v))
}

/// A nullable text column of a few short values.
fn fixed_texts(values: &[Option<&'static str>]) -> StringArray {
    let mut bytes = Vec::with_capacity(values.len() * 4);
    let mut ends = Vec::with_capacity(values.len());
    for v in values {
        bytes.extend_from_slice(v.unwrap_or("").as_bytes());
        ends.push(bytes.len() as u32);
    }
    let nulls = values
        .iter()
        .any(Option::is_none)
        .then(|| NullBuffer::from_iter(values.iter().map(Option::is_some)));
    StringArray::try_new(offsets(&ends), Buffer::from_vec(bytes), nulls)
        .expect("ASCII texts of a few bytes")
}

/// `len` zeros from one buffer kept for the process (a row group's and one more), for the
/// columns of batches without an engine's evaluation: made anew for each batch, their values
/// and the `pv` lists' offsets were 12 bytes a row of fresh memory the table faulted in.
/// `None` when `len` is more than it holds.
fn shared_zeros(len: usize) -> Option<ScalarBuffer<i32>> {
    static ZEROS: std::sync::OnceLock<ScalarBuffer<i32>> = std::sync::OnceLock::new();
    let zeros = ZEROS.get_or_init(|| ScalarBuffer::from(vec![0i32; ROW_GROUP_ROWS + 1]));
    (len <= zeros.len()).then(|| zeros.slice(0, len))
}

/// The `eval_cp`, `mate` and `pv` columns of `n` rows, from the evaluations of a few of them
/// (by row, in order).
fn evaluations(evals: &[(u32, EngineEval)], n: usize) -> (ArrayRef, ArrayRef, ArrayRef) {
    if evals.is_empty() {
        let pv = positions_schema().field(10).data_type().clone();
        if let (Some(zeros), DataType::List(item)) = (shared_zeros(n + 1), &pv) {
            // All null: values and offsets that are never read, shared by every batch.
            let nulls = || Some(NullBuffer::new_null(n));
            let number = || Arc::new(Int32Array::new(zeros.slice(0, n), nulls())) as ArrayRef;
            let pv = ListArray::new(
                Arc::clone(item),
                OffsetBuffer::new(zeros.clone()),
                Arc::new(StringArray::new_null(0)),
                nulls(),
            );
            return (number(), number(), Arc::new(pv));
        }
        return (
            Arc::new(Int32Array::new_null(n)),
            Arc::new(Int32Array::new_null(n)),
            new_null_array(&pv, n),
        );
    }
    let mut cp = vec![None; n];
    let mut mate = vec![None; n];
    let mut pv = ListBuilder::with_capacity(StringBuilder::new(), n);
    let mut evals = evals.iter().peekable();
    for i in 0..n {
        match evals.next_if(|e| e.0 as usize == i) {
            Some((_, e)) if !e.pv.is_empty() => {
                (cp[i], mate[i]) = (e.eval_cp, e.mate);
                for m in &e.pv {
                    pv.values().append_value(m);
                }
                pv.append(true);
            }
            Some((_, e)) => {
                (cp[i], mate[i]) = (e.eval_cp, e.mate);
                pv.append_null();
            }
            None => pv.append_null(),
        }
    }
    (
        Arc::new(Int32Array::from(cp)),
        Arc::new(Int32Array::from(mate)),
        Arc::new(pv.finish()),
    )
}

/// The rows of a batch of [`positions_schema`], as [`PositionRow`]s borrowing its texts
/// (`None` for a batch of another schema).
pub fn position_rows(batch: &RecordBatch) -> Option<Vec<PositionRow<'_>>> {
    use arrow_array::{Array, ListArray, cast::AsArray};
    if batch.schema() != positions_schema() {
        return None;
    }
    let c = batch.columns();
    let path = c[0].as_string::<i32>();
    let game = c[1].as_primitive::<arrow_array::types::Int64Type>();
    let key = c[2].as_string::<i32>();
    let ply = c[3].as_primitive::<arrow_array::types::Int32Type>();
    let sfen = c[4].as_string::<i32>();
    let side = c[5].as_string::<i32>();
    let mv = c[6].as_string::<i32>();
    let time = c[7].as_primitive::<arrow_array::types::Int64Type>();
    let cp = c[8].as_primitive::<arrow_array::types::Int32Type>();
    let mate = c[9].as_primitive::<arrow_array::types::Int32Type>();
    let pv: &ListArray = c[10].as_list::<i32>();
    let legal = c[11].as_boolean();
    let result = c[12].as_string::<i32>();
    Some(
        (0..batch.num_rows())
            .map(|i| {
                let eval = (cp.is_valid(i) || mate.is_valid(i) || pv.is_valid(i)).then(|| {
                    let moves = pv.value(i);
                    let moves = moves.as_string::<i32>();
                    EngineEval {
                        eval_cp: cp.is_valid(i).then(|| cp.value(i)),
                        mate: mate.is_valid(i).then(|| mate.value(i)),
                        pv: (0..moves.len())
                            .map(|j| moves.value(j).to_owned())
                            .collect(),
                    }
                });
                PositionRow {
                    path: path.value(i),
                    game: game.value(i).max(0) as u64,
                    game_key: key.value(i),
                    ply: u32::try_from(ply.value(i)).unwrap_or(0),
                    sfen: sfen.value(i),
                    side: if side.value(i) == "b" { "b" } else { "w" },
                    mv: mv.value(i),
                    time_ms: time.is_valid(i).then(|| time.value(i).max(0) as u64),
                    eval,
                    legal: legal.value(i),
                    result: result.is_valid(i).then(|| match result.value(i) {
                        "win" => "win",
                        "loss" => "loss",
                        _ => "draw",
                    }),
                }
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests;
