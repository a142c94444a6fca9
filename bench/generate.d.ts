export declare const SHAPES: Record<string, string>;
export declare const CLEAN_SHAPES: string[];
export declare function generate(path: string, lines: number, opts?: { shape?: string; seed?: number; firstSession?: number; startMs?: number }): Promise<number>;
