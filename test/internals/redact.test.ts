// Nothing that may be a secret is ever printed: passwords in userinfo, secret parameters, in urls and in driver text.
import { redactText, redactUrl } from '../../src/values/redact.js';
import { resolveOptions } from '../../src/store.options.js';
import { StoreConfigurationError } from '../../src/store.errors.js';

// [url, what it prints as, the secrets that must not show]
const HOSTILE_URLS: [string, string, string[]][] = [
  ['mysql://app:p@ss@db.internal:3306/agents', 'mysql://app:***@db.internal:3306/agents', ['p@ss', 'ss@db']],
  ['mariadb://app:pa:ss/wo@rd?#x@db:3306/agents', 'mariadb://app:***@db:3306/agents', ['pa:ss', 'wo@rd', 'rd?#x']],
  ['postgresql://u:pw@h/db?sslpassword=x1x&password=y2y', 'postgresql://u:***@h/db?sslpassword=***&password=***', ['pw', 'x1x', 'y2y']],
  ['postgres://h:5432/db?token=t0k&application_name=me', 'postgres://h:5432/db?token=***&application_name=me', ['t0k']],
  ['mysql://app:p%40ss%2Fw%3Ard@h/db', 'mysql://app:***@h/db', ['p%40ss', 'ss%2F']],
  ['postgresql://h/db?PassWord=Y3s&sslmode=require', 'postgresql://h/db?PassWord=***&sslmode=require', ['Y3s']],
  ['postgresql://h/db?pass%77ord=3nc', 'postgresql://h/db?pass%77ord=***', ['3nc']],
  // An unencoded `&` in a secret parameter does not end it.
  ['postgresql://h/db?password=a&mp&sslmode=require', 'postgresql://h/db?password=***&sslmode=require', ['a&mp', '&mp']],
  [
    'postgresql://h/db?api_key=k1&client_secret=s1&access_token=t1&credentials=c1&pwd=p1&passphrase=q1',
    'postgresql://h/db?api_key=***&client_secret=***&access_token=***&credentials=***&pwd=***&passphrase=***',
    ['k1', 's1', 't1', 'c1', 'p1', 'q1'],
  ],
  ['POSTGRESQL://U:PW@H/DB?PASSWORD=Z9', 'POSTGRESQL://U:***@H/DB?PASSWORD=***', ['PW', 'Z9']],
  // An `@` in the query: the userinfo may run to it, so the reader loses the host rather than a password.
  ['postgresql://h/db?user=a@b&password=x7', 'postgresql://h/db?user=a@b&password=***', ['x7']],
  ['mysql://app:pw@h/db?note=a@b', 'mysql://app:***@b', ['pw']],
  // Urls that do not parse.
  ['mysql://app:pa/ss@', 'mysql://app:***@', ['pa/ss']],
  ['postgresql://u:p@ss@/db?sslpassword=s5', 'postgresql://u:***@/db?sslpassword=***', ['p@ss', 's5']],
  ['mysql:app:pw@host/db', 'mysql:***@host/db', ['app:pw']],
  // A libpq keyword string given where a url belongs.
  ['host=db user=app password=s3cr3t dbname=agents', 'host=db user=app password=*** dbname=agents', ['s3cr3t']],
  ["host=db password='a b@c' sslpassword=k3y", 'host=db password=*** sslpassword=***', ['a b', 'b@c', 'k3y']],
  ['host = db password = s3cr3t', 'host = db password = ***', ['s3cr3t']],
  ["host=db password='it\\'s s3cr3t' user=app", 'host=db password=*** user=app', ['it', 's3cr3t']],
  ['host=db password=ab&cd,ef)gh', 'host=db password=***', ['ab', 'cd', 'ef', 'gh']],
  ['Server=db;User=app;Password=s3 cr3t;Database=agents', 'Server=db;User=app;Password=***;Database=agents', ['s3', 'cr3t']],
  ['app:pw@host/db', 'app:***@host/db', ['pw']],
  ['  mysql://app:pw@host/db', '  mysql://app:***@host/db', ['pw']],
  ['mysql://app:pw@h:port/db', 'mysql://app:***@h:port/db', ['pw']],
];

const KEPT = [
  'mysql://root@127.0.0.1:3306/mysql',
  'postgresql://app@db:5432/agents?sslmode=require',
  'file:./data/agent-store.db',
  'file:/srv/me@work/store.db',
  'not a url',
  '',
];

describe('redactUrl', () => {
  test.each(HOSTILE_URLS)('%s prints as %s', (url, printed, secrets) => {
    expect(redactUrl(url)).toBe(printed);
    for (const secret of secrets) expect(redactUrl(url)).not.toContain(secret);
  });

  test.each(KEPT)('%j has no secret and is kept as it is', (url) => {
    expect(redactUrl(url)).toBe(url);
  });
});

describe('redactText', () => {
  test('masks every url in a message, and libpq-style secret pairs', () => {
    expect(redactText('cannot reach "mysql://app:s3cret@db/agents": ECONNREFUSED, nor postgres://u:p4ss@h/d?token=t0k')).toBe(
      'cannot reach "mysql://app:***@db/agents": ECONNREFUSED, nor postgres://u:***@h/d?token=***',
    );
    expect(redactText('host=db user=app password=s3cret sslpassword="a b" dbname=agents')).toBe('host=db user=app password=*** sslpassword=*** dbname=agents');
  });

  test('a password with a space in it, which ends the url in the text, is masked to its @', () => {
    const printed = redactText('cannot reach postgresql://app:s3 cr3t@db/agents (ECONNREFUSED)');
    expect(printed).toBe('cannot reach postgresql://app:***@db/agents (ECONNREFUSED)');
  });

  test("a host's port is no password: the text after it, an @ in the server's words, stays", () => {
    const message = "mysql://db:3306/agents: Access denied for user 'app'@'10.0.0.1'";
    expect(redactText(message)).toBe(message);
  });

  test('a long line of url-like text is scanned in linear time', () => {
    const started = Date.now();
    redactText('a://b:'.repeat(50_000));
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  test('leaves driver messages without secrets alone', () => {
    const messages = [
      "(conn:5, no: 1045, SQLState: 28000) Access denied for user 'app'@'localhost' (using password: YES)",
      'Key (id)=(t1) already exists.',
      'database "agents" does not exist',
    ];
    for (const message of messages) expect(redactText(message)).toBe(message);
  });
});

describe('options errors print no secret', () => {
  test.each([
    ['an unknown scheme', 'mongodb://app:pw1@h/db?password=s3cret'],
    ['a url without a host', 'postgresql://app:pw1@/db?sslpassword=s3cret'],
    ['a mysql url without a host', 'mysql://app:p@w1@?token=s3cret'],
  ])('%s', (_case, url) => {
    let error: unknown;
    try {
      resolveOptions({ url });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(StoreConfigurationError);
    const printed = `${(error as Error).message} ${(error as Error).stack}`;
    expect(printed).toContain('app:***@');
    expect(printed).not.toContain('s3cret');
    expect(printed).not.toContain('pw1');
    expect(printed).not.toContain('w1');
  });

  test('a libpq keyword string', () => {
    expect(() => resolveOptions({ url: "host=db user=app password='s3 cret' dbname=agents" })).toThrow(
      expect.objectContaining({ name: 'StoreConfigurationError', message: expect.stringContaining('"host=db user=app password=*** dbname=agents"') }),
    );
  });
});
