/**
 * Where the model labels of a scatter plot (Figure 7) go: beside their point, inside the plot,
 * never over another label or point. Points drawn at one place (one model file under two labels,
 * or runs with equal values) get one label naming all of them. A label is tried at each place
 * around its point in turn (right, left, above, below, then the diagonals), clear of the plot's
 * edges (the axes); one that fits nowhere is left out and named in the caption instead. Sizes are estimates of Vega's rendering
 * (a character is at most 0.6 of the font size wide).
 */

export interface PlotGeometry {
  /** The axes' domains in data units. */
  x: [number, number];
  y: [number, number];
  /** The plot's size in pixels. */
  width: number;
  height: number;
  fontSize: number;
  /** Radius of a point (px). */
  pointRadius: number;
}

export interface PlacedLabel {
  /** The label's left end and vertical middle, in data units (a text mark with align left, baseline middle). */
  x: number;
  y: number;
  text: string;
}

interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** Room kept free inside each edge of the plot (px), so no label touches an axis line or its ticks. */
const EDGE = 4;

const overlaps = (a: Box, b: Box) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

/** Labels for the points (data units), and the texts that found no room. */
export function placeLabels(points: ReadonlyArray<{ x: number; y: number; text: string }>, g: PlotGeometry): { labels: PlacedLabel[]; unlabelled: string[] } {
  const px = (x: number) => ((x - g.x[0]) / (g.x[1] - g.x[0])) * g.width;
  const py = (y: number) => g.height - ((y - g.y[0]) / (g.y[1] - g.y[0])) * g.height;
  // One label per place drawn, naming every model there once, in the order they come.
  const places = new Map<string, { x: number; y: number; texts: string[] }>();
  for (const p of points) {
    const key = `${Math.round(px(p.x))},${Math.round(py(p.y))}`;
    const place = places.get(key) ?? { x: px(p.x), y: py(p.y), texts: [] };
    if (!place.texts.includes(p.text)) place.texts.push(p.text);
    places.set(key, place);
  }
  const r = g.pointRadius;
  const taken: Box[] = [...places.values()].map((p) => ({ left: p.x - r, right: p.x + r, top: p.y - r, bottom: p.y + r }));
  const h = g.fontSize + 2;
  const gap = r + 2;
  const labels: PlacedLabel[] = [];
  const unlabelled: string[] = [];
  for (const place of places.values()) {
    const text = place.texts.join(', ');
    const w = text.length * 0.6 * g.fontSize;
    // Left end and middle of the label, around the point.
    const candidates: Array<[number, number]> = [
      [place.x + gap, place.y],
      [place.x - gap - w, place.y],
      [place.x - w / 2, place.y - gap - h / 2],
      [place.x - w / 2, place.y + gap + h / 2],
      [place.x + gap, place.y - gap - h / 2],
      [place.x + gap, place.y + gap + h / 2],
      [place.x - gap - w, place.y - gap - h / 2],
      [place.x - gap - w, place.y + gap + h / 2],
    ];
    const fit = candidates
      .map(([left, middle]) => ({ left, right: left + w, top: middle - h / 2, bottom: middle + h / 2 }))
      .find(
        (box) => box.left >= EDGE && box.right <= g.width - EDGE && box.top >= EDGE && box.bottom <= g.height - EDGE && !taken.some((t) => overlaps(t, box)),
      );
    if (!fit) {
      unlabelled.push(text);
      continue;
    }
    taken.push(fit);
    labels.push({ x: g.x[0] + (fit.left / g.width) * (g.x[1] - g.x[0]), y: g.y[0] + ((g.height - (fit.top + h / 2)) / g.height) * (g.y[1] - g.y[0]), text });
  }
  return { labels, unlabelled };
}
