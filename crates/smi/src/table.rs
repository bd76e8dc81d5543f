//! Views as data: a [`Table`] is columns and rows of [`Value`]s, built from typed records by a
//! list of [`Field`]s (one row of data per column: key, title, unit, getter). Text, CSV and JSON
//! are derived from the same table, so the three outputs always carry the same values under
//! the same keys.
//!
//! - JSON: one object per row, keyed by the column keys; a value a device does not offer is
//!   `null`.
//! - CSV (RFC 4180): a header of the keys, then one line per row; missing values read `N/A`,
//!   lists are joined with `;`.
//! - Text: a table with aligned columns ([`Layout::Wide`]), one block per row
//!   ([`Layout::Sections`]), or, for pairs of devices, one matrix per value ([`Layout::Matrix`]);
//!   units are written after the values, missing values read `N/A`.

use serde_json::{json, Map, Value as Json};

/// One cell.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Not offered by this device or machine.
    Na,
    Int(i64),
    /// A measurement; `decimals` is how many digits text and CSV show (JSON rounds to the same).
    Float {
        value: f64,
        decimals: u8,
    },
    Text(String),
    Bool(bool),
    List(Vec<Value>),
}

impl Value {
    pub fn float(value: f64, decimals: u8) -> Value {
        if value.is_finite() {
            Value::Float { value, decimals }
        } else {
            Value::Na
        }
    }

    pub fn is_na(&self) -> bool {
        matches!(self, Value::Na)
    }

    /// The number CSV and text show, so JSON carries exactly the same value.
    fn rounded(value: f64, decimals: u8) -> f64 {
        format!("{value:.*}", decimals as usize).parse().unwrap_or(value)
    }

    /// The JSON form: numbers, strings, booleans, arrays; `null` for [`Value::Na`].
    pub fn to_json(&self) -> Json {
        match self {
            Value::Na => Json::Null,
            Value::Int(v) => json!(v),
            Value::Float { value, decimals } => json!(Value::rounded(*value, *decimals)),
            Value::Text(s) => json!(s),
            Value::Bool(b) => json!(b),
            Value::List(items) => Json::Array(items.iter().map(Value::to_json).collect()),
        }
    }

    /// The plain form CSV uses: no unit, `N/A` when missing.
    pub fn plain(&self) -> String {
        match self {
            Value::Na => "N/A".into(),
            Value::Int(v) => v.to_string(),
            Value::Float { value, decimals } => format!("{value:.*}", *decimals as usize),
            Value::Text(s) => s.clone(),
            Value::Bool(b) => b.to_string(),
            Value::List(items) => items.iter().map(Value::plain).collect::<Vec<_>>().join(";"),
        }
    }

    /// The form text output uses: the value with its unit.
    pub fn display(&self, unit: Unit) -> String {
        match self {
            Value::Na => "N/A".into(),
            Value::Bool(b) => if *b { "yes" } else { "no" }.into(),
            Value::List(items) => items.iter().map(|v| v.display(unit)).collect::<Vec<_>>().join(" "),
            Value::Text(s) => s.clone(),
            Value::Int(v) => unit.format(*v as f64, 0),
            Value::Float { value, decimals } => unit.format(*value, *decimals),
        }
    }
}

impl From<Option<Value>> for Value {
    fn from(v: Option<Value>) -> Value {
        v.unwrap_or(Value::Na)
    }
}

/// Builds values from plain Rust data.
pub trait IntoValue {
    fn value(&self) -> Value;
}

macro_rules! int_value {
    ($($t:ty),*) => {$(
        impl IntoValue for $t {
            fn value(&self) -> Value {
                i64::try_from(*self).map(Value::Int).unwrap_or(Value::Na)
            }
        }
    )*};
}
int_value!(u32, u64, usize, i32, i64);

impl IntoValue for bool {
    fn value(&self) -> Value {
        Value::Bool(*self)
    }
}

impl IntoValue for String {
    fn value(&self) -> Value {
        Value::Text(self.clone())
    }
}

impl IntoValue for &str {
    fn value(&self) -> Value {
        Value::Text(self.to_string())
    }
}

impl<T: IntoValue> IntoValue for Option<T> {
    fn value(&self) -> Value {
        self.as_ref().map(IntoValue::value).unwrap_or(Value::Na)
    }
}

/// What a number means, for text output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    None,
    Celsius,
    Watts,
    Joules,
    MHz,
    Percent,
    /// Bytes, shown in MiB.
    Bytes,
    /// Bytes per second, shown in MB/s.
    BytesPerSecond,
}

impl Unit {
    fn format(self, v: f64, decimals: u8) -> String {
        let d = decimals as usize;
        match self {
            Unit::None => format!("{v:.d$}"),
            Unit::Celsius => format!("{v:.d$}°C"),
            Unit::Watts => format!("{v:.d$} W"),
            Unit::Joules => format!("{v:.d$} J"),
            Unit::MHz => format!("{v:.d$} MHz"),
            Unit::Percent => format!("{v:.d$}%"),
            Unit::Bytes => format!("{:.0} MiB", v / (1u64 << 20) as f64),
            Unit::BytesPerSecond => format!("{:.1} MB/s", v / 1e6),
        }
    }
}

/// A column: its JSON/CSV key, its text title and unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    pub key: &'static str,
    pub title: &'static str,
    pub unit: Unit,
}

/// A column of a table of `R`s: the column and how to read it from a record.
pub struct Field<R> {
    pub column: Column,
    pub get: fn(&R) -> Value,
}

impl<R> Field<R> {
    pub const fn new(key: &'static str, title: &'static str, unit: Unit, get: fn(&R) -> Value) -> Field<R> {
        Field { column: Column { key, title, unit }, get }
    }
}

/// How text output lays a table out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One line per row under aligned titles.
    Wide,
    /// One block per row: a heading from the first `heading` columns, then `title: value`.
    Sections { heading: usize },
    /// Rows are pairs (`from`, `to` in the first two columns); one matrix per further column
    /// that is not N/A for every pair.
    Matrix,
}

/// A named table; the name is its key in JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub name: &'static str,
    /// Text heading ("Processes"); empty for none.
    pub title: &'static str,
    pub layout: Layout,
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Value>>,
}

impl Table {
    /// Reads every field of every record.
    pub fn build<R>(
        name: &'static str,
        title: &'static str,
        layout: Layout,
        fields: &[Field<R>],
        records: &[R],
    ) -> Table {
        Table {
            name,
            title,
            layout,
            columns: fields.iter().map(|f| f.column).collect(),
            rows: records.iter().map(|r| fields.iter().map(|f| (f.get)(r)).collect()).collect(),
        }
    }

    /// One JSON object per row.
    pub fn to_json(&self) -> Json {
        Json::Array(
            self.rows
                .iter()
                .map(|row| {
                    let mut m = Map::new();
                    for (c, v) in self.columns.iter().zip(row) {
                        m.insert(c.key.to_string(), v.to_json());
                    }
                    Json::Object(m)
                })
                .collect(),
        )
    }

    /// The header line of [`Table::to_csv`].
    pub fn csv_header(&self) -> String {
        csv_line(self.columns.iter().map(|c| c.key.to_string()))
    }

    /// The CSV line of row `i`.
    pub fn csv_row(&self, i: usize) -> String {
        csv_line(self.rows[i].iter().map(Value::plain))
    }

    /// A header line and one line per row, each ending in a newline.
    pub fn to_csv(&self) -> String {
        let mut out = self.csv_header();
        out.push('\n');
        for i in 0..self.rows.len() {
            out.push_str(&self.csv_row(i));
            out.push('\n');
        }
        out
    }

    fn cells(&self, row: &[Value]) -> Vec<String> {
        self.columns.iter().zip(row).map(|(c, v)| v.display(c.unit)).collect()
    }

    /// Column widths for [`Layout::Wide`] text.
    pub fn widths(&self) -> Vec<usize> {
        let mut w: Vec<usize> = self.columns.iter().map(|c| c.title.chars().count()).collect();
        for row in &self.rows {
            for (i, cell) in self.cells(row).iter().enumerate() {
                w[i] = w[i].max(cell.chars().count());
            }
        }
        w
    }

    /// The title line of [`Layout::Wide`] text for the given widths.
    pub fn text_header(&self, widths: &[usize]) -> String {
        pad_line(self.columns.iter().map(|c| c.title.to_string()), widths)
    }

    /// Row `i` as a [`Layout::Wide`] text line for the given widths.
    pub fn text_row(&self, i: usize, widths: &[usize]) -> String {
        pad_line(self.cells(&self.rows[i]).into_iter(), widths)
    }

    /// The table as text, in its layout, ending in a newline.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if !self.title.is_empty() {
            out.push_str(self.title);
            out.push('\n');
        }
        match self.layout {
            Layout::Wide => {
                let w = self.widths();
                out.push_str(&self.text_header(&w));
                out.push('\n');
                for i in 0..self.rows.len() {
                    out.push_str(&self.text_row(i, &w));
                    out.push('\n');
                }
            }
            Layout::Sections { heading } => {
                let title_width =
                    self.columns.iter().skip(heading).map(|c| c.title.chars().count()).max().unwrap_or(0);
                for (n, row) in self.rows.iter().enumerate() {
                    if n > 0 {
                        out.push('\n');
                    }
                    let cells = self.cells(row);
                    let head: Vec<String> = self.columns[..heading]
                        .iter()
                        .zip(&cells)
                        .map(|(c, v)| if c.key == "device" { format!("Device {v}") } else { v.clone() })
                        .collect();
                    out.push_str(&head.join(": "));
                    out.push('\n');
                    for (c, v) in self.columns.iter().zip(&cells).skip(heading) {
                        out.push_str(&format!("  {:<title_width$}  {v}\n", c.title));
                    }
                }
            }
            Layout::Matrix => out.push_str(&self.matrices()),
        }
        out
    }

    /// One matrix per column after `from` and `to`; the diagonal reads `X`.
    fn matrices(&self) -> String {
        let key = |row: &Vec<Value>, i: usize| row.get(i).map(Value::plain).unwrap_or_default();
        let mut devices: Vec<String> = Vec::new();
        for row in &self.rows {
            for i in 0..2 {
                let d = key(row, i);
                if !devices.contains(&d) {
                    devices.push(d);
                }
            }
        }
        devices.sort_by_key(|d| d.parse::<u64>().unwrap_or(u64::MAX));
        let mut out = String::new();
        for (col, c) in self.columns.iter().enumerate().skip(2) {
            // A value no pair has (NVLinks between CPU devices) would be a matrix of N/A.
            if self.rows.iter().all(|r| r[col].is_na()) {
                continue;
            }
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(c.title);
            out.push('\n');
            let mut grid: Vec<Vec<String>> = Vec::new();
            let mut header = vec![String::new()];
            header.extend(devices.iter().cloned());
            grid.push(header);
            for from in &devices {
                let mut line = vec![from.clone()];
                for to in &devices {
                    let cell = if from == to {
                        "X".to_string()
                    } else {
                        self.rows
                            .iter()
                            .find(|r| key(r, 0) == *from && key(r, 1) == *to)
                            .map(|r| r[col].display(c.unit))
                            .unwrap_or_else(|| "N/A".into())
                    };
                    line.push(cell);
                }
                grid.push(line);
            }
            let widths: Vec<usize> = (0..grid[0].len())
                .map(|i| grid.iter().map(|l| l[i].chars().count()).max().unwrap_or(0))
                .collect();
            for line in grid {
                out.push_str(&pad_line(line.into_iter(), &widths));
                out.push('\n');
            }
        }
        out
    }
}

fn pad_line(cells: impl Iterator<Item = String>, widths: &[usize]) -> String {
    let cells: Vec<String> = cells.collect();
    let n = cells.len();
    let mut line = String::new();
    for (i, (cell, w)) in cells.into_iter().zip(widths).enumerate() {
        if i + 1 == n {
            line.push_str(&cell);
        } else {
            line.push_str(&format!("{cell:<w$}  "));
        }
    }
    line.trim_end().to_string()
}

/// One CSV record: fields with a comma, quote or line break are quoted, quotes doubled.
fn csv_line(fields: impl Iterator<Item = String>) -> String {
    fields
        .map(
            |f| {
                if f.contains([',', '"', '\n', '\r']) {
                    format!("\"{}\"", f.replace('"', "\"\""))
                } else {
                    f
                }
            },
        )
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Row {
        name: &'static str,
        watts: Option<f64>,
        ok: bool,
    }

    const FIELDS: &[Field<Row>] = &[
        Field::new("name", "Name", Unit::None, |r| r.name.value()),
        Field::new("power_w", "Power", Unit::Watts, |r| r.watts.map(|w| Value::float(w, 1)).into()),
        Field::new("ok", "OK", Unit::None, |r| r.ok.value()),
    ];

    fn table() -> Table {
        let rows = [
            Row { name: "a, \"quoted\"", watts: Some(71.25), ok: true },
            Row { name: "b", watts: None, ok: false },
        ];
        Table::build("devices", "", Layout::Wide, FIELDS, &rows)
    }

    #[test]
    fn csv_quotes_and_marks_missing_values() {
        assert_eq!(table().to_csv(), "name,power_w,ok\n\"a, \"\"quoted\"\"\",71.2,true\nb,N/A,false\n");
    }

    #[test]
    fn json_uses_the_keys_and_null() {
        let j = table().to_json();
        assert_eq!(j[0]["name"], "a, \"quoted\"");
        assert_eq!(j[0]["power_w"], 71.2);
        assert_eq!(j[1]["power_w"], Json::Null);
        assert_eq!(j[1]["ok"], false);
    }

    #[test]
    fn text_aligns_columns_and_writes_units() {
        assert_eq!(
            table().to_text(),
            "Name         Power   OK\na, \"quoted\"  71.2 W  yes\nb            N/A     no\n"
        );
    }

    #[test]
    fn non_finite_measurements_are_missing() {
        assert!(Value::float(f64::NAN, 1).is_na());
        assert!(Value::float(f64::INFINITY, 1).is_na());
        assert_eq!(u64::MAX.value(), Value::Na);
    }
}
