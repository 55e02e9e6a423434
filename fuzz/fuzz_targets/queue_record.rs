#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| kroon_fuzz::queue_record(data));
