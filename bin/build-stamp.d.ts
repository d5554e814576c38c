export declare const STAMP_FILE: string;
export declare function sourceListing(root: string): string | undefined;
export declare function stampedListing(root: string): string | undefined;
export declare function writeBuildStamp(root: string, sources: string | undefined): void;
