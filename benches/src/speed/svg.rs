//! Throughput-by-message-size charts as one hand-written SVG document: one
//! panel per table, message size on a log-scale x axis, MB/s on a linear y
//! axis from zero, one polyline (with a marker per point) and one legend
//! entry per implementation and backend. No plotting dependency: the
//! format is a few element kinds, and a reader compares curves faster than
//! columns of figures.

use std::fmt::Write as _;

/// One line: `points` are `(message bytes, MB/s)`.
#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// One panel.
#[derive(Clone, Debug)]
pub struct Chart {
    pub title: String,
    pub series: Vec<Series>,
}

const WIDTH: f64 = 1060.0;
const PLOT_W: f64 = 560.0;
const PLOT_H: f64 = 340.0;
const LEFT: f64 = 80.0;
const TOP: f64 = 50.0;
/// Below the plot: tick labels and the axis title.
const BOTTOM: f64 = 60.0;
const LEGEND_X: f64 = LEFT + PLOT_W + 30.0;
const LEGEND_ROW: f64 = 18.0;

/// Line colours (Okabe-Ito and Tableau-like, distinguishable in print); past
/// the last one the colours repeat with a dash pattern.
const COLOURS: [&str; 10] = [
    "#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#8c564b",
    "#7f7f7f", "#bcbd22",
];
const DASHES: [&str; 3] = ["", "6 3", "2 3"];

/// The SVG document of `charts`, panels stacked top to bottom; an error
/// (naming what is wrong) for no charts, a chart without series, a series
/// without points, or a point that cannot go on the axes (size not
/// positive, throughput negative or not finite).
pub fn document(charts: &[Chart]) -> Result<String, String> {
    if charts.is_empty() {
        return Err("no charts to draw".into());
    }
    for c in charts {
        if c.series.is_empty() {
            return Err(format!("chart {:?} has no series", c.title));
        }
        for s in &c.series {
            if s.points.is_empty() {
                return Err(format!(
                    "series {:?} of {:?} has no points",
                    s.name, c.title
                ));
            }
            for &(x, y) in &s.points {
                if !(x.is_finite() && x > 0.0 && y.is_finite() && y >= 0.0) {
                    return Err(format!(
                        "series {:?} of {:?}: point ({x}, {y}) is not a positive size and a \
                         finite, non-negative MB/s",
                        s.name, c.title
                    ));
                }
            }
        }
    }
    let heights: Vec<f64> = charts.iter().map(panel_height).collect();
    let total: f64 = heights.iter().sum();
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{total}" viewBox="0 0 {WIDTH} {total}" font-family="sans-serif" font-size="12">
<rect width="{WIDTH}" height="{total}" fill="white"/>"#
    );
    let mut y0 = 0.0;
    for (c, h) in charts.iter().zip(heights) {
        panel(&mut out, c, y0);
        y0 += h;
    }
    out.push_str("</svg>\n");
    Ok(out)
}

fn panel_height(c: &Chart) -> f64 {
    let legend = TOP + LEGEND_ROW * c.series.len() as f64;
    (TOP + PLOT_H + BOTTOM).max(legend + 20.0)
}

fn panel(out: &mut String, c: &Chart, y0: f64) {
    let xs = c.series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let (mut lo, mut hi) = xs.fold((f64::INFINITY, 0.0f64), |(l, h), x| (l.min(x), h.max(x)));
    if hi <= lo {
        // One size only: a decade around it.
        lo /= 3.0;
        hi *= 3.0;
    }
    let (llo, lhi) = (lo.log10(), hi.log10());
    let ymax = c
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(0.0f64, f64::max);
    let step = nice_step(ymax);
    let ytop = (ymax / step).ceil().max(1.0) * step;
    let px = |x: f64| LEFT + (x.log10() - llo) / (lhi - llo) * PLOT_W;
    let py = |y: f64| y0 + TOP + PLOT_H - y / ytop * PLOT_H;

    let _ = writeln!(out, "<g>");
    let _ = writeln!(
        out,
        r#"<text x="{}" y="{}" font-size="15" font-weight="bold">{}</text>"#,
        LEFT,
        y0 + 28.0,
        escape(&c.title)
    );
    // Axes box, y grid and labels.
    let _ = writeln!(
        out,
        r##"<rect x="{LEFT}" y="{}" width="{PLOT_W}" height="{PLOT_H}" fill="none" stroke="#444"/>"##,
        y0 + TOP
    );
    let mut v = 0.0;
    while v <= ytop + step / 2.0 {
        let y = py(v);
        let _ = writeln!(
            out,
            r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
            LEFT + PLOT_W,
            LEFT - 6.0,
            y + 4.0,
            fmt_num(v)
        );
        v += step;
    }
    // x ticks at the sizes measured.
    let mut sizes: Vec<f64> = c
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    sizes.sort_by(f64::total_cmp);
    sizes.dedup();
    for x in sizes {
        let xp = px(x);
        let _ = writeln!(
            out,
            r##"<line x1="{xp:.1}" y1="{:.1}" x2="{xp:.1}" y2="{:.1}" stroke="#eee"/><text x="{xp:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            y0 + TOP,
            y0 + TOP + PLOT_H,
            y0 + TOP + PLOT_H + 18.0,
            fmt_size(x)
        );
    }
    let _ = writeln!(
        out,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">message size (log scale)</text>"#,
        LEFT + PLOT_W / 2.0,
        y0 + TOP + PLOT_H + 42.0
    );
    let _ = writeln!(
        out,
        r#"<text transform="translate({:.1},{:.1}) rotate(-90)" text-anchor="middle">MB/s</text>"#,
        LEFT - 55.0,
        y0 + TOP + PLOT_H / 2.0
    );
    // Lines, markers, legend.
    for (i, s) in c.series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let dash = DASHES[(i / COLOURS.len()) % DASHES.len()];
        let dash = if dash.is_empty() {
            String::new()
        } else {
            format!(r#" stroke-dasharray="{dash}""#)
        };
        let mut pts = s.points.clone();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let list: Vec<String> = pts
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
            .collect();
        let _ = writeln!(
            out,
            r#"<polyline fill="none" stroke="{colour}" stroke-width="2"{dash} points="{}"><title>{}</title></polyline>"#,
            list.join(" "),
            escape(&s.name)
        );
        for &(x, y) in &pts {
            let _ = writeln!(
                out,
                r#"<circle cx="{:.1}" cy="{:.1}" r="2.5" fill="{colour}"/>"#,
                px(x),
                py(y)
            );
        }
        let ly = y0 + TOP + LEGEND_ROW * i as f64 + 6.0;
        let _ = writeln!(
            out,
            r#"<line x1="{LEGEND_X}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{colour}" stroke-width="2"{dash}/><text x="{:.1}" y="{:.1}">{}</text>"#,
            LEGEND_X + 22.0,
            LEGEND_X + 28.0,
            ly + 4.0,
            escape(&s.name)
        );
    }
    let _ = writeln!(out, "</g>");
}

/// A 1, 2 or 5 times a power of ten that splits `max` into about 5 steps.
fn nice_step(max: f64) -> f64 {
    if max <= 0.0 {
        return 1.0;
    }
    let raw = max / 5.0;
    let p = 10f64.powf(raw.log10().floor());
    let m = raw / p;
    p * if m <= 1.0 {
        1.0
    } else if m <= 2.0 {
        2.0
    } else if m <= 5.0 {
        5.0
    } else {
        10.0
    }
}

fn fmt_num(v: f64) -> String {
    if v >= 10.0 || v == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// `16 B`, `1350 B`, `8 KiB`, `16 KiB`.
fn fmt_size(x: f64) -> String {
    let n = x.round() as u64;
    if n >= 1024 && n.is_multiple_of(1024) {
        format!("{} KiB", n / 1024)
    } else {
        format!("{n} B")
    }
}

fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            c => o.push(c),
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks the XML is well formed as far as this writer's output goes:
    /// one declaration, every element closed in order, attribute values
    /// quoted, no bare `&` or `<` in text or attributes. Returns the
    /// element names in document order.
    fn check_xml(doc: &str) -> Vec<String> {
        let body = doc
            .strip_prefix(r#"<?xml version="1.0" encoding="UTF-8"?>"#)
            .expect("XML declaration first");
        let mut open: Vec<String> = Vec::new();
        let mut names = Vec::new();
        let mut rest = body;
        while let Some(i) = rest.find('<') {
            let text = &rest[..i];
            check_text(text);
            let end = rest[i..].find('>').expect("unterminated tag") + i;
            let tag = &rest[i + 1..end];
            rest = &rest[end + 1..];
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(open.pop().as_deref(), Some(name), "close tag out of order");
                continue;
            }
            let self_closing = tag.ends_with('/');
            let tag = tag.trim_end_matches('/');
            let (name, attrs) = tag.split_once(' ').unwrap_or((tag, ""));
            check_attrs(attrs);
            names.push(name.to_owned());
            if !self_closing {
                open.push(name.to_owned());
            }
        }
        check_text(rest);
        assert!(open.is_empty(), "unclosed elements: {open:?}");
        assert_eq!(
            names.first().map(String::as_str),
            Some("svg"),
            "root is <svg>"
        );
        names
    }

    fn check_text(t: &str) {
        assert!(!t.contains('>'), "bare > in {t:?}");
        for (i, _) in t.match_indices('&') {
            let ent = &t[i..];
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"]
                    .iter()
                    .any(|e| ent.starts_with(e)),
                "bare & in {t:?}"
            );
        }
    }

    fn check_attrs(attrs: &str) {
        let mut rest = attrs.trim();
        while !rest.is_empty() {
            let (name, after) = rest.split_once("=\"").expect("attribute name=\"value\"");
            assert!(
                !name.is_empty()
                    && name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "-:".contains(c)),
                "attribute name {name:?}"
            );
            let (value, after) = after.split_once('"').expect("closing quote");
            assert!(!value.contains('<'), "< in attribute {value:?}");
            check_text(value);
            rest = after.trim_start();
        }
    }

    fn series(name: &str, ys: &[f64]) -> Series {
        let sizes = [16.0, 256.0, 1350.0, 8192.0, 16384.0];
        Series {
            name: name.into(),
            points: sizes.iter().copied().zip(ys.iter().copied()).collect(),
        }
    }

    #[test]
    fn one_polyline_and_legend_entry_per_series_in_well_formed_xml() {
        let charts = [
            Chart {
                title: "AES-128-GCM seal <x86_64 on \"Test CPU\" & co>".into(),
                series: vec![
                    series(
                        "aes-gcm-ct auto (vaes-clmul)",
                        &[200.0, 2000.0, 5000.0, 9000.0, 9500.0],
                    ),
                    series("ring 0.17", &[150.0, 1500.0, 3500.0, 6000.0, 6500.0]),
                    series(
                        "RustCrypto aes-gcm 0.11 auto",
                        &[100.0, 900.0, 1500.0, 2000.0, 2100.0],
                    ),
                ],
            },
            Chart {
                title: "GHASH".into(),
                series: vec![series("one point", &[42.0])],
            },
        ];
        let doc = document(&charts).expect("valid input draws");
        let names = check_xml(&doc);
        let count = |n: &str| names.iter().filter(|x| *x == n).count();
        assert_eq!(count("polyline"), 4, "one polyline per series");
        assert_eq!(count("circle"), 16, "one marker per point");
        // Title text escaped; each legend entry carries its series' name.
        assert!(
            doc.contains("&lt;x86_64 on &quot;Test CPU&quot; &amp; co&gt;"),
            "{doc}"
        );
        for s in charts.iter().flat_map(|c| &c.series) {
            assert_eq!(
                doc.matches(&format!(">{}</text>", escape(&s.name))).count(),
                1,
                "{}",
                s.name
            );
        }
        // Larger throughput is higher on the page (smaller y) at 16 KiB.
        let last_y = |i: usize| -> f64 {
            let poly = doc.match_indices("<polyline").nth(i).expect("polyline").0;
            let pts = &doc[poly..];
            let pts = &pts[pts.find("points=\"").expect("points") + 8..];
            let pts = &pts[..pts.find('"').expect("end")];
            pts.rsplit(' ')
                .next()
                .and_then(|p| p.split(',').nth(1))
                .expect("y")
                .parse()
                .expect("number")
        };
        assert!(last_y(0) < last_y(1) && last_y(1) < last_y(2));
    }

    #[test]
    fn empty_or_bad_input_is_a_clear_error() {
        assert_eq!(document(&[]).unwrap_err(), "no charts to draw");
        let no_series = [Chart {
            title: "T".into(),
            series: vec![],
        }];
        assert!(document(&no_series).unwrap_err().contains("has no series"));
        let no_points = [Chart {
            title: "T".into(),
            series: vec![series("s", &[])],
        }];
        assert!(document(&no_points).unwrap_err().contains("has no points"));
        let bad = [Chart {
            title: "T".into(),
            series: vec![Series {
                name: "s".into(),
                points: vec![(0.0, 1.0)],
            }],
        }];
        assert!(document(&bad).unwrap_err().contains("not a positive size"));
        let nan = [Chart {
            title: "T".into(),
            series: vec![series("s", &[f64::NAN])],
        }];
        assert!(document(&nan).unwrap_err().contains("not a positive size"));
    }
}
