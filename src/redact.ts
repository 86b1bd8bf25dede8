// Connection strings carry passwords: never echo one back.
export const redact = (url: string) => url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');
