// Starts s3rver (installed by scripts/fetch-s3rver.sh) on loopback, port 0, for the tests that
// need a real S3-compatible store: one bucket, and the key pair the caller chose (env KJE_KEY_ID,
// KJE_SECRET). Prints "listening <port>" once it serves.
//
//   node scripts/s3rver-main.js <s3rver install root> <data directory> <bucket>
const root = process.argv[2];
const S3rver = require(root + '/node_modules/s3rver');
const { DUMMY_ACCOUNT } = require(root + '/node_modules/s3rver/lib/models/account');
DUMMY_ACCOUNT.createKeyPair(process.env.KJE_KEY_ID, process.env.KJE_SECRET);
new S3rver({ address: '127.0.0.1', port: 0, directory: process.argv[3], silent: true,
             configureBuckets: [{ name: process.argv[4], configs: [] }] })
  .run().then(({ port }) => console.log('listening ' + port))
  .catch((e) => { console.error(e); process.exit(1); });
