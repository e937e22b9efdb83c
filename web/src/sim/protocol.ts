/**
 * Messages between the main thread and the physics worker. Frames carry Float32 buffers that
 * travel back and forth (transferred, never reallocated), so rendering allocates nothing.
 */
import type { EngineWarning, ModelFiles, ModelInfo } from '../engine/flexlab';

/** Static description of what to draw, sent once per compiled scene. */
export interface Topology {
  flexes: Array<{
    name: string;
    dim: number;
    vertadr: number;
    vertnum: number;
    /** Triangles (local vertex ids) to draw: elements in 2D, the boundary surface in 3D. */
    triangles: number[];
    /** Segments for 1D flexes. */
    segments: number[];
    radius: number;
    rgba: [number, number, number, number];
    /** Local ids of vertices that sit on a body other than their own (pins). */
    pinned: number[];
  }>;
  geoms: Array<{ type: number; size: [number, number, number]; rgba: [number, number, number, number]; body: number }>;
  nflexvert: number;
  ngeom: number;
  /** Body of each flex vertex (−1 for interpolated vertices). */
  vertbody: number[];
}

export type ToWorker =
  | { type: 'load'; xml: string; files: ModelFiles; elastic3d: Record<string, number>; token: number }
  | { type: 'play' }
  | { type: 'pause' }
  | { type: 'step'; n: number }
  | { type: 'reset' }
  | { type: 'speed'; value: number }
  | { type: 'buffer'; buffer: ArrayBuffer }
  | { type: 'drag'; body: number; target: [number, number, number] | null; stiffness: number }
  | { type: 'field'; name: string; id: number };

export interface FrameStats {
  time: number;
  /** Simulated seconds per wall second over the last interval. */
  realtime: number;
  stepsPerSecond: number;
  ncon: number;
  nefc: number;
  running: boolean;
  warnings: EngineWarning[];
}

export type FromWorker =
  | { type: 'ready'; version: string }
  | { type: 'loaded'; token: number; info: ModelInfo; topology: Topology }
  | { type: 'error'; token: number; message: string }
  | { type: 'frame'; buffer: ArrayBuffer; stats: FrameStats }
  | { type: 'field'; id: number; values: Float64Array | null; cols: number; error?: string }
  | { type: 'crash'; message: string };
