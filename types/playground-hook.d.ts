// The playground's test hook (js/playground/app.js sets it; tests/browser drives the page
// with it). The results are the page's last result as plain JSON.

interface Window {
  __contextfold: {
    /** Resolves once the page has loaded the engine and the first sample. */
    ready: Promise<void>;
    readonly lastResult: any;
    readonly error: string | null;
    idle(): Promise<any>;
    /**
     * Replays the loaded session with the page's settings: the replay's summary, null without
     * an input, undefined when a replay was already under way.
     */
    replay(): Promise<import("../js/playground/engine.js").ReplayReport | null | void>;
    setInput(text: string, name?: string, format?: string): Promise<any>;
    setConfig(config?: Record<string, unknown>): Promise<any>;
    setBudget(n: number | string | null | undefined): Promise<any>;
    setPrompt(t: string | null | undefined): Promise<any>;
  };
}
