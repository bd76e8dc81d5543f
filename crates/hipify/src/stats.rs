//! Translation statistics: what was converted, by API and by name, what was
//! left unconverted, and how many lines changed.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::tables::Api;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    pub converted_by_api: BTreeMap<Api, usize>,
    pub converted_by_name: BTreeMap<&'static str, usize>,
    pub unconverted_by_name: BTreeMap<&'static str, usize>,
    pub lines_changed: usize,
    pub lines_total: usize,
    pub kernel_launches: usize,
    pub files: usize,
}

impl Stats {
    pub(crate) fn record(&mut self, api: Api, name: &'static str) {
        *self.converted_by_api.entry(api).or_default() += 1;
        *self.converted_by_name.entry(name).or_default() += 1;
    }

    pub(crate) fn record_unconverted(&mut self, name: &'static str) {
        *self.unconverted_by_name.entry(name).or_default() += 1;
    }

    pub fn converted(&self) -> usize {
        self.converted_by_api.values().sum()
    }

    pub fn unconverted(&self) -> usize {
        self.unconverted_by_name.values().sum()
    }

    /// Converted references as a share of all CUDA references found.
    pub fn conversion_percent(&self) -> f64 {
        let all = self.converted() + self.unconverted();
        if all == 0 {
            100.0
        } else {
            100.0 * self.converted() as f64 / all as f64
        }
    }

    pub fn changed_lines_percent(&self) -> f64 {
        if self.lines_total == 0 {
            0.0
        } else {
            100.0 * self.lines_changed as f64 / self.lines_total as f64
        }
    }

    pub fn merge(&mut self, other: &Stats) {
        for (k, v) in &other.converted_by_api {
            *self.converted_by_api.entry(*k).or_default() += v;
        }
        for (k, v) in &other.converted_by_name {
            *self.converted_by_name.entry(k).or_default() += v;
        }
        for (k, v) in &other.unconverted_by_name {
            *self.unconverted_by_name.entry(k).or_default() += v;
        }
        self.lines_changed += other.lines_changed;
        self.lines_total += other.lines_total;
        self.kernel_launches += other.kernel_launches;
        self.files += other.files;
    }

    /// The human-readable report printed by `--print-stats`.
    pub fn report(&self, title: &str) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "[HIPIFY] statistics for {title}:");
        let _ = writeln!(s, "  converted references: {}", self.converted());
        let _ = writeln!(s, "  unconverted references: {}", self.unconverted());
        let _ = writeln!(s, "  conversion: {:.1}%", self.conversion_percent());
        let _ = writeln!(s, "  kernel launches: {}", self.kernel_launches);
        let _ = writeln!(
            s,
            "  lines changed: {} of {} ({:.1}%)",
            self.lines_changed,
            self.lines_total,
            self.changed_lines_percent()
        );
        if !self.converted_by_api.is_empty() {
            let by_api: Vec<String> =
                self.converted_by_api.iter().map(|(a, n)| format!("{} {n}", a.name())).collect();
            let _ = writeln!(s, "  converted by API: {}", by_api.join(", "));
            let by_name: Vec<String> =
                self.converted_by_name.iter().map(|(k, n)| format!("{k} {n}")).collect();
            let _ = writeln!(s, "  converted by name: {}", by_name.join(", "));
        }
        if !self.unconverted_by_name.is_empty() {
            let names: Vec<String> =
                self.unconverted_by_name.iter().map(|(k, n)| format!("{k} {n}")).collect();
            let _ = writeln!(s, "  unconverted by name: {}", names.join(", "));
        }
        s
    }

    /// The same report as CSV: `section,key,value` rows under a header line.
    pub fn csv(&self, title: &str) -> String {
        let mut s = String::from("section,key,value\n");
        let title = csv_field(title);
        let _ = writeln!(s, "summary,input,{title}");
        let _ = writeln!(s, "summary,converted,{}", self.converted());
        let _ = writeln!(s, "summary,unconverted,{}", self.unconverted());
        let _ = writeln!(s, "summary,conversion_percent,{:.1}", self.conversion_percent());
        let _ = writeln!(s, "summary,kernel_launches,{}", self.kernel_launches);
        let _ = writeln!(s, "summary,lines_changed,{}", self.lines_changed);
        let _ = writeln!(s, "summary,lines_total,{}", self.lines_total);
        let _ = writeln!(s, "summary,changed_lines_percent,{:.1}", self.changed_lines_percent());
        for (a, n) in &self.converted_by_api {
            let _ = writeln!(s, "api,{},{n}", a.name());
        }
        for (k, n) in &self.converted_by_name {
            let _ = writeln!(s, "converted,{},{n}", csv_field(k));
        }
        for (k, n) in &self.unconverted_by_name {
            let _ = writeln!(s, "unconverted,{},{n}", csv_field(k));
        }
        s
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
