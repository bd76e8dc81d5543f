//! Philox4x32-10 block function against the Random123 known-answer vectors
//! (`kat_vectors`, lines `philox4x32 10 ...`: counter[4] key[2] -> output[4]).

use ferrocm_rand::reference::philox::philox4x32_10;

fn check(ctr: [u32; 4], key: [u32; 2], want: [u32; 4]) {
    assert_eq!(philox4x32_10(ctr, key), want, "ctr {ctr:08x?} key {key:08x?}");
}

#[test]
fn zero_counter_zero_key() {
    check([0; 4], [0; 2], [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]);
}

#[test]
fn all_ones_counter_and_key() {
    check([u32::MAX; 4], [u32::MAX; 2], [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]);
}

#[test]
fn pi_digits_counter_and_key() {
    check(
        [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
        [0xa4093822, 0x299f31d0],
        [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1],
    );
}
