BEGIN TRANSACTION;
CREATE TABLE artifacts (
    digest TEXT PRIMARY KEY,
    size   INTEGER NOT NULL,
    data   BLOB NOT NULL
);
CREATE TABLE events (
    run_id       TEXT NOT NULL,
    seq          INTEGER NOT NULL,
    kind         TEXT NOT NULL,
    step         INTEGER,
    payload_json TEXT NOT NULL,
    incarnation  INTEGER NOT NULL,
    at           REAL NOT NULL,
    
    
    digest       BLOB NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
INSERT INTO "events" VALUES('crashed',1,'run_started',NULL,'{"input":3,"workflow":"orders"}',0,1700000100.0,X'8EAEB7CAC7570238C3D84E3AA3C7E8BC249E6CA901556D6C4CC8C5D76ECD0785');
INSERT INTO "events" VALUES('crashed',2,'transition',NULL,'{"event":"claim","worker_id":"w"}',1,1700000100.0,X'43F537231E06104323CB8319156FCEAFFC7D5FCE2F795B60ACD6D1B4CBC1C6ED');
INSERT INTO "events" VALUES('crashed',3,'intent',0,'{"args":{"i":0,"ratio":0.5,"tags":["a","b"],"where":{"city":"Zürich","zip":[8001,8002]},"who":"José"},"args_digest":"sha256:6d85ae5e5ff7ff4e1814286a8d7a70c8a240d885250283a1b2f1e715b85eb1e3","effect":"keyed-idempotent","effect_key":"ek_195f6d2eec4c6ff4d1b80aa0a78a743a","tool":"fetch"}',1,1700000100.0,X'04CEE9B25D11FC4BCE84F6CB79D80C3C292E5953FD76191838E8001E0D231068');
INSERT INTO "events" VALUES('crashed',4,'tool_result',0,'{"effect_key":"ek_195f6d2eec4c6ff4d1b80aa0a78a743a","value":{"note":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx","order_id":"ord_0000","ratio":0.5,"who":"José"}}',1,1700000100.0,X'CC3ED55990F9D7F2D2452A505C9E551F24D0C306B6217281EA727D1B4CE17FFC');
INSERT INTO "events" VALUES('crashed',5,'intent',1,'{"args":{"cents":100,"currency":"EUR","order":"ord_0000"},"args_digest":"sha256:532a2a26223a998e7d1de5ed5705af17cd3c5816e152a0304ad0c6fdcde65e24","effect":"keyed-idempotent","effect_key":"ek_d2aebc59971f1320a16a431fe65c021b","tool":"charge"}',1,1700000100.0,X'278F8DF32054F755839FA2679A9DC3576B3648108471C8A6287778D30040A8BE');
INSERT INTO "events" VALUES('crashed',6,'tool_result',1,'{"effect_key":"ek_d2aebc59971f1320a16a431fe65c021b","value":{"charged":100,"currency":"EUR"}}',1,1700000100.0,X'BC92464A6F26BB6CCAA325905A93459CC1351A64D4D0735215B3B0ACC48723C3');
INSERT INTO "events" VALUES('crashed',7,'intent',2,'{"args":{"i":1,"ratio":0.5,"tags":["a","b"],"where":{"city":"Zürich","zip":[8001,8002]},"who":"José"},"args_digest":"sha256:0d207442d28490858db12978f6cf82f40b75089dc5ebe577021a532576faab70","effect":"keyed-idempotent","effect_key":"ek_b3c3398455fb2b1f384045c4f237b0a4","tool":"fetch"}',1,1700000100.0,X'E07C2E3AA795C72732B6A4E16E993080A5529C36F3D54A24EC4941EDA19890E4');
INSERT INTO "events" VALUES('done',1,'run_started',NULL,'{"input":3,"workflow":"orders"}',0,1700000000.0,X'97FB3E103EF1C767470A9B3C231F0E8CE4137D0CE91E68C8545A407F15803E59');
INSERT INTO "events" VALUES('done',2,'transition',NULL,'{"event":"claim","worker_id":"w"}',1,1700000000.0,X'2D4CDE13C3955D50B0190C53565C6CD8A4356E1A625916950B947B968977C7BB');
INSERT INTO "events" VALUES('done',3,'intent',0,'{"args":{"i":0,"ratio":0.5,"tags":["a","b"],"where":{"city":"Zürich","zip":[8001,8002]},"who":"José"},"args_digest":"sha256:6d85ae5e5ff7ff4e1814286a8d7a70c8a240d885250283a1b2f1e715b85eb1e3","effect":"keyed-idempotent","effect_key":"ek_71e85004c03bddd8d4fc43981dcb5fa2","tool":"fetch"}',1,1700000000.0,X'9AF90BE298AD7239D8CB258C581BD249745893AA86AD6A2552B2EE9673C17CC7');
INSERT INTO "events" VALUES('done',4,'tool_result',0,'{"effect_key":"ek_71e85004c03bddd8d4fc43981dcb5fa2","value":{"note":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx","order_id":"ord_0000","ratio":0.5,"who":"José"}}',1,1700000000.0,X'C2EC2983B65D41B4401F6889910207B493C17E8967E813D5B44F4B08B1A71664');
INSERT INTO "events" VALUES('done',5,'intent',1,'{"args":{"cents":100,"currency":"EUR","order":"ord_0000"},"args_digest":"sha256:532a2a26223a998e7d1de5ed5705af17cd3c5816e152a0304ad0c6fdcde65e24","effect":"keyed-idempotent","effect_key":"ek_3b4ecdfc48ba42ed41e277e392f944e3","tool":"charge"}',1,1700000000.0,X'D87ABD5DC6E87E13911BC29949601F1A276FA5C2953A4AEA7E07F3A8BAF0517E');
INSERT INTO "events" VALUES('done',6,'tool_result',1,'{"effect_key":"ek_3b4ecdfc48ba42ed41e277e392f944e3","value":{"charged":100,"currency":"EUR"}}',1,1700000000.0,X'A2770B4A3DD9C4E5F45FFACEEEA70A09BF390F05A3D3898583DB646948A06967');
INSERT INTO "events" VALUES('done',7,'intent',2,'{"args":{"i":1,"ratio":0.5,"tags":["a","b"],"where":{"city":"Zürich","zip":[8001,8002]},"who":"José"},"args_digest":"sha256:0d207442d28490858db12978f6cf82f40b75089dc5ebe577021a532576faab70","effect":"keyed-idempotent","effect_key":"ek_497e4caa80f5b52fc3d12324f235b9a6","tool":"fetch"}',1,1700000000.0,X'2BF0AC5D763A563819211DF8EFAE9515FECD145FC22282F276786706ADC1EE6E');
INSERT INTO "events" VALUES('done',8,'tool_result',2,'{"effect_key":"ek_497e4caa80f5b52fc3d12324f235b9a6","value":{"note":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx","order_id":"ord_0001","ratio":0.5,"who":"José"}}',1,1700000000.0,X'4E4C8D2018E9F65488C8C8517A029B9C7D634A61BCB85DCA94FAE3F7DEC258BE');
INSERT INTO "events" VALUES('done',9,'intent',3,'{"args":{"cents":101,"currency":"EUR","order":"ord_0001"},"args_digest":"sha256:a67ea2098508c60ebc896547b0b93ecceb410368ab1a162007b381f01efe5050","effect":"keyed-idempotent","effect_key":"ek_df39e2e0e1bea4b49a2b4fe04fb1b6c9","tool":"charge"}',1,1700000000.0,X'BAB6F3D2F73234CAD0B02CA29CC8BB2B8EA32CDB578109F7380E1D3A40216CE7');
INSERT INTO "events" VALUES('done',10,'tool_result',3,'{"effect_key":"ek_df39e2e0e1bea4b49a2b4fe04fb1b6c9","value":{"charged":101,"currency":"EUR"}}',1,1700000000.0,X'066D99A4B59E593FD33684D8F85BD39B7DFE88E215F869EA390AAE8E40C99D37');
INSERT INTO "events" VALUES('done',11,'intent',4,'{"args":{"i":2,"ratio":0.5,"tags":["a","b"],"where":{"city":"Zürich","zip":[8001,8002]},"who":"José"},"args_digest":"sha256:2f28700b7e420d10383f0679cdf2cf7f26a9a1dde68d5b3b472e4a847b7a9233","effect":"keyed-idempotent","effect_key":"ek_69a76106dba0de0e27e74673b15d3063","tool":"fetch"}',1,1700000000.0,X'438D4406E29AB77BFC2881E3D76B81205AC45589BDF747735AE2E393AFCD7484');
INSERT INTO "events" VALUES('done',12,'tool_result',4,'{"effect_key":"ek_69a76106dba0de0e27e74673b15d3063","value":{"note":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx","order_id":"ord_0002","ratio":0.5,"who":"José"}}',1,1700000000.0,X'AF8B0027EEFBFC39383F56844BBC3E1569F460F1D836158AB56C53773EBBFCF6');
INSERT INTO "events" VALUES('done',13,'intent',5,'{"args":{"cents":102,"currency":"EUR","order":"ord_0002"},"args_digest":"sha256:c7cf847fa3ce7a9db6a29e3cd2b36d3921ce208f38f743560f04f55522c96fcc","effect":"keyed-idempotent","effect_key":"ek_9e79eac6a58a2933a8c92be2faf734c0","tool":"charge"}',1,1700000000.0,X'9341046EEC8EF5636A0384719336C4FB5E5328BA1665CA38469C444BFAB90EEE');
INSERT INTO "events" VALUES('done',14,'tool_result',5,'{"effect_key":"ek_9e79eac6a58a2933a8c92be2faf734c0","value":{"charged":102,"currency":"EUR"}}',1,1700000000.0,X'52B37FE73A46C4A7318AC5273CE997D095A0C178DAECD53918D7E9F04D622E50');
INSERT INTO "events" VALUES('done',15,'transition',NULL,'{"event":"complete","result":[["ord_0000",100],["ord_0001",101],["ord_0002",102]],"worker_id":"w"}',1,1700000000.0,X'A7CBAFCF2D49C7CDBB4B778AD37259ED2E4DC4017E5C7AEB3AE9BB0581030A78');
CREATE TABLE kv (
    run_id TEXT NOT NULL,
    key    TEXT NOT NULL,
    value  TEXT NOT NULL,
    PRIMARY KEY (run_id, key)
) WITHOUT ROWID;
CREATE TABLE runs (
    run_id           TEXT PRIMARY KEY,
    workflow         TEXT NOT NULL,
    input_json       TEXT NOT NULL,
    state            TEXT NOT NULL,
    revision         INTEGER NOT NULL,
    incarnation      INTEGER NOT NULL,   
    worker_id        TEXT,
    lease_expires_at REAL,
    detail_json      TEXT NOT NULL DEFAULT '{}',
    last_seq         INTEGER NOT NULL DEFAULT 0,
    last_digest      TEXT NOT NULL,
    created_at       REAL NOT NULL,
    updated_at       REAL NOT NULL
);
INSERT INTO "runs" VALUES('done','orders','3','succeeded',2,1,NULL,NULL,'{"result": [["ord_0000", 100], ["ord_0001", 101], ["ord_0002", 102]]}',15,'sha256:a7cbafcf2d49c7cdbb4b778ad37259ed2e4dc4017e5c7aeb3ae9bb0581030a78',1700000000.0,1700000000.0);
INSERT INTO "runs" VALUES('crashed','orders','3','running',1,1,'w',1700000130.0,'{}',7,'sha256:e07c2e3aa795c72732b6a4e16e993080a5529c36f3d54a24ec4941eda19890e4',1700000100.0,1700000100.0);
CREATE INDEX runs_claimable ON runs(state, lease_expires_at);
COMMIT;
